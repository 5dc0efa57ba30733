@testable import Coordinator
import Analysis

extension GroupingPhoto {
    /// A photo as grouping reads it back after a worker analysed it into `features`.
    init(_ features: PhotoFeatures, id: Int64, path: String, fileSize: Int64) {
        self.init(id: id, path: path, sha256: Array(String(id).utf8), pHash: features.pHash, dHash: features.dHash,
                  windowPHashes: features.windowPHashes, thumbnail: features.thumbnail,
                  width: features.width, height: features.height, fileSize: fileSize, sharpness: features.sharpness,
                  mirrorPHash: features.mirrorPHash, contentBox: features.contentBox, contentPHash: features.contentPHash,
                  chroma: features.chroma)
    }
}
