@testable import Coordinator
import Analysis
import Foundation

/// The exported features of real photos (bench/feature-model.py).
struct FeatureModel: Decodable {
    struct Row: Decodable {
        var corpus: String
        var group: String
        var transform: String
        var pHash: UInt64
        var windows: [UInt64]
        var thumbnail: [UInt8]
        /// The 16×16 chroma layout (pipeline 5; empty for grayscale files and older models).
        var chroma: [UInt8]
        /// The detail layout (pipeline 8; empty for photos without fine texture).
        var detail: [UInt8]
        /// Pipeline 4: the mirror pHash, and the content box and its pHash if it has borders.
        var mirror: UInt64
        var content: UInt64?
        var contentBox: FeatureWindow?
        /// The frame turned a quarter turn (`TurnedFrame.pHash`): not in the model file, worked
        /// out from the thumbnail as the store works it out.
        var turned: UInt64 = 0
        /// The centre square (`CentreSquare.pHash`), worked out likewise; nil for frames near square.
        var square: UInt64?
        /// The oriented size (models from before the twenty-sixth session: 4000 × 3000). Only the
        /// shape matters: a crop's frame registers in its original at its own shape.
        var width = 4000, height = 3000
        /// The analysis pipeline that computed the row (models from before the thirtieth session: nil).
        var pipeline: Int?

        enum CodingKeys: String, CodingKey { case corpus, group, transform, phash, windows, thumbnail, chroma, detail, mirror, content, content_box, width, height, pipeline }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            corpus = try c.decode(String.self, forKey: .corpus)
            group = try c.decode(String.self, forKey: .group)
            transform = try c.decode(String.self, forKey: .transform)
            pHash = try c.decode(UInt64.self, forKey: .phash)
            windows = try c.decode([UInt64].self, forKey: .windows)
            thumbnail = [UInt8](Data(base64Encoded: try c.decode(String.self, forKey: .thumbnail)) ?? Data())
            chroma = try c.decodeIfPresent(String.self, forKey: .chroma).flatMap { Data(base64Encoded: $0) }.map { [UInt8]($0) } ?? []
            detail = try c.decodeIfPresent(String.self, forKey: .detail).flatMap { Data(base64Encoded: $0) }.map { [UInt8]($0) } ?? []
            mirror = try c.decodeIfPresent(UInt64.self, forKey: .mirror) ?? 0
            content = try c.decodeIfPresent(UInt64.self, forKey: .content)
            contentBox = try c.decodeIfPresent([Double].self, forKey: .content_box).flatMap { box in
                box.count == 4 ? FeatureWindow(x: box[0], y: box[1], width: box[2], height: box[3]) : nil
            }
            width = try c.decodeIfPresent(Int.self, forKey: .width) ?? width
            height = try c.decodeIfPresent(Int.self, forKey: .height) ?? height
            pipeline = try c.decodeIfPresent(Int.self, forKey: .pipeline)
            turned = TurnedFrame.pHash(thumbnail: thumbnail) ?? 0
            square = CentreSquare.pHash(thumbnail: thumbnail, width: width, height: height)
        }
    }

    var photos: [Row]
    var corpora: [String] = []
    /// Real originals (transform "original"), as indexes into `photos`, by corpus.
    var originals: [String: [Int]] = [:]
    /// Every edit made of the originals, by name.
    var transforms: [String] = []
    /// For each original (index into `photos`): its edited copy by transform index.
    var family: [Int: [Int: Int]] = [:]

    enum CodingKeys: String, CodingKey { case photos }

    init(from decoder: any Decoder) throws {
        photos = try decoder.container(keyedBy: CodingKeys.self).decode([Row].self, forKey: .photos)
            .filter { $0.windows.count == RealisticLibrary.windowCount && $0.thumbnail.count == RealisticLibrary.thumbnailBytes && $0.mirror != 0 }
            .map { var row = $0; row.group = "\(row.corpus)/\(row.group)"; return row }
        var originalOf: [String: Int] = [:]
        for (index, row) in photos.enumerated() where row.transform == "original" {
            originalOf[row.group] = index
            originals[row.corpus, default: []].append(index)
        }
        corpora = originals.keys.sorted()
        // Negatives (similar shots, look-alikes) are their own truth groups with no original:
        // they are never planted as copies.
        transforms = Array(Set(photos.filter { $0.transform != "original" && originalOf[$0.group] != nil }.map(\.transform))).sorted()
        let transformIndex = Dictionary(uniqueKeysWithValues: transforms.enumerated().map { ($1, $0) })
        for (index, row) in photos.enumerated() where row.transform != "original" {
            guard let original = originalOf[row.group], let t = transformIndex[row.transform] else { continue }
            family[original, default: [:]][t] = index
        }
    }

    static func load(_ path: String) throws -> FeatureModel {
        let model = try JSONDecoder().decode(FeatureModel.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
        guard !model.corpora.isEmpty else {
            throw ModelError(description: "\(path) holds no photo of pipeline \(PhotoAnalyzer.pipelineVersion) "
                             + "(\(RealisticLibrary.windowCount) windows and a mirror hash): delete it and run bench/grouping.sh again to remake it")
        }
        // Rows of another pipeline are features this build's workers do not compute (pipeline
        // 7 reads WebP at full range): a benchmark on them measures another cull.
        let pipelines = Set(model.photos.map(\.pipeline))
        guard pipelines == [Int(PhotoAnalyzer.pipelineVersion)] else {
            let made = pipelines.map { $0.map(String.init) ?? "unknown" }.sorted().joined(separator: ", ")
            throw ModelError(description: "\(path) was made by analysis pipeline \(made), this build analyses with pipeline "
                             + "\(PhotoAnalyzer.pipelineVersion): delete it and run bench/grouping.sh again to remake it")
        }
        guard model.photos.contains(where: { !$0.chroma.isEmpty }) else {
            throw ModelError(description: "\(path) holds no chroma layouts (a model made before they were exported): "
                             + "delete it and run bench/grouping.sh again to remake it")
        }
        return model
    }

    struct ModelError: Error, CustomStringConvertible { let description: String }
}
