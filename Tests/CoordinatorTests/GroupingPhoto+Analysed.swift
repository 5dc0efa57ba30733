@testable import Coordinator
import Analysis

extension GroupingPhoto {
    /// A photo as grouping reads it back after a worker analysed it into `features` (and the
    /// store worked out its turned frame's and centre square's pHashes).
    init(_ features: PhotoFeatures, id: Int64, path: String, fileSize: Int64) {
        self.init(id: id, path: path, sha256: Array(String(id).utf8), pHash: features.pHash, dHash: features.dHash,
                  windowPHashes: features.windowPHashes, thumbnail: features.thumbnail,
                  width: features.width, height: features.height, fileSize: fileSize, sharpness: features.sharpness,
                  mirrorPHash: features.mirrorPHash, contentBox: features.contentBox, contentPHash: features.contentPHash,
                  turnedPHash: TurnedFrame.pHash(thumbnail: features.thumbnail),
                  squarePHash: CentreSquare.pHash(thumbnail: features.thumbnail, width: features.width, height: features.height),
                  chroma: features.chroma, detail: features.detail)
    }

    /// `image` written as a quality-90 JPEG and analysed for real, as photo `id` at `path`.
    static func analysed(_ id: Int64, _ path: String, _ image: RGBImage) throws -> GroupingPhoto {
        let jpeg = try JPEGEncoder.encode(rgb: image.pixels, width: image.width, height: image.height, quality: 90)
        return GroupingPhoto(try PhotoAnalyzer.analyze(jpeg, path: path, options: AnalysisOptions()), id: id, path: path, fileSize: Int64(jpeg.count))
    }
}
