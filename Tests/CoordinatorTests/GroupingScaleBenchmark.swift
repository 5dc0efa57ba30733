@testable import Coordinator
import Analysis
import Foundation
import Testing

/// A benchmark, not a test: how grouping scales with the library (bench/grouping.sh runs it in a
/// release build). Skipped unless CULL_BENCH_GROUPING names the photo counts, e.g. "100000,400000".
@Suite("Grouping at library scale (benchmark)", .timeLimit(.minutes(30)))
struct GroupingScaleBenchmark {
    static let sizes: [Int] = (ProcessInfo.processInfo.environment["CULL_BENCH_GROUPING"] ?? "")
        .split(separator: ",").compactMap { Int($0) }

    /// `count` photos: random hashes and thumbnails, every tenth photo with two near copies
    /// (a few bits flipped in every hash, the thumbnail a little brighter).
    static func library(_ count: Int) -> [GroupingPhoto] {
        var random = SplitMix64(seed: UInt64(count))
        var photos: [GroupingPhoto] = []
        photos.reserveCapacity(count)
        func flipped(_ hash: UInt64, _ bits: Int) -> UInt64 {
            var hash = hash
            for _ in 0..<bits { hash ^= 1 << (random.next() % 64) }
            return hash
        }
        while photos.count < count {
            let id = Int64(photos.count)
            let pHash = random.next(), dHash = random.next()
            let windows = (0..<FeatureWindow.crops.count).map { _ in random.next() }
            let thumbnail = (0..<(LayoutThumbnail.side * LayoutThumbnail.side)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            let original = GroupingPhoto(id: id, path: "/lib/\(id).jpg", sha256: Array(String(id).utf8), pHash: pHash, dHash: dHash,
                                         windowPHashes: windows, thumbnail: thumbnail, width: 4000, height: 3000,
                                         fileSize: 4_000_000, sharpness: 1)
            photos.append(original)
            guard photos.count % 10 == 1 else { continue }
            for copy in 1...2 where photos.count < count {
                var near = original
                near.id = Int64(photos.count)
                near.path = "/lib/\(near.id)-copy\(copy).jpg"
                near.sha256 = Array(String(near.id).utf8)
                near.pHash = flipped(pHash, 3)
                near.windowPHashes = windows.map { flipped($0, 3) }
                near.thumbnail = thumbnail.map { UInt8(min(255, Int($0) + 8)) }
                photos.append(near)
            }
        }
        return photos
    }

    @Test("group N photos", .enabled(if: !sizes.isEmpty), arguments: sizes)
    func scale(count: Int) {
        let photos = Self.library(count)
        let clock = ContinuousClock()
        var groups: [PhotoGroup] = []
        let elapsed = clock.measure { groups = Grouper().groups(of: photos) }
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        print("grouping \(count) photos: \(String(format: "%.2f", seconds)) s, \(String(format: "%.0f", Double(count) / seconds)) photos/s, \(groups.count) groups")
        #expect(groups.count == (count + 9) / 10)
    }
}
