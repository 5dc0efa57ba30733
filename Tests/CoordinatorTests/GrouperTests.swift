@testable import Coordinator
import Analysis
import Shared
import Synchronization
import Testing

@Suite("Grouping", .timeLimit(.minutes(5)))
struct GrouperTests {
    func photo(_ id: Int64, _ path: String, sha: UInt8, pHash: UInt64, dHash: UInt64 = 0, pixels: Int = 100, size: Int64 = 1000) -> GroupingPhoto {
        GroupingPhoto(id: id, path: path, sha256: [UInt8](repeating: sha, count: 32), pHash: pHash, dHash: dHash,
                      width: pixels, height: pixels, fileSize: size, sharpness: 1)
    }

    @Test("identical bytes form an exact group; look-alikes a near group with the largest as keeper")
    func kinds() {
        let photos = [
            photo(1, "/a/orig.jpg", sha: 1, pHash: 0b1111, pixels: 4000),
            photo(2, "/a/copy.jpg", sha: 1, pHash: 0b1111, pixels: 4000),
            photo(3, "/b/one.jpg", sha: 2, pHash: 0xFFFF_0000, pixels: 100),
            photo(4, "/b/small.jpg", sha: 3, pHash: 0xFFFF_0007, pixels: 50),
            photo(5, "/c/alone.jpg", sha: 4, pHash: 0x0F0F_0F0F_0F0F_0F0F),
        ]
        let groups = Grouper(threshold: 10).groups(of: photos)
        #expect(groups.count == 2)
        let exact = groups.first { $0.kind == .exact }
        #expect(exact?.members.map(\.photoID).sorted() == [1, 2])
        #expect(exact?.members.allSatisfy { $0.distance == 0 } == true)
        let near = groups.first { $0.kind == .near }
        #expect(near?.keeper == 3)
        #expect(near?.members.first { $0.photoID == 4 }?.distance == 3)
    }

    @Test("progress: every photo searched, every candidate judged, the neighbours, then the listing step")
    func progress() async throws {
        // Grouping blocks its calling thread while its helper threads run: not on the cooperative pool.
        try await onOwnThread { try self.checkProgress() }
    }

    func checkProgress() throws {
        // 40 distinct photos in pairs of look-alikes (a copy 2 bits away), one exact copy.
        var random = SplitMix64(seed: 3)
        var photos: [GroupingPhoto] = []
        for index in 0..<20 {
            let hash = random.next()
            photos.append(photo(Int64(2 * index + 1), "/p/\(index)a.jpg", sha: UInt8(2 * index + 1), pHash: hash))
            photos.append(photo(Int64(2 * index + 2), "/p/\(index)b.jpg", sha: UInt8(2 * index + 2), pHash: hash ^ 0b101))
        }
        photos.append(photo(99, "/p/copy.jpg", sha: 1, pHash: photos[0].pHash))
        let progress = GroupingProgress()
        #expect(progress.snapshot == .init(step: .starting, done: 0, total: 0))
        let groups = try Grouper(threshold: 10).groups(of: photos, progress: progress, shouldStop: { false })
        #expect(groups.count == 20)
        #expect(progress.snapshot == .init(step: .listing, done: 0, total: 0))
        // The steps' totals, seen through a grouping that records each step as it goes (the
        // stop question is asked between chunks, from the grouping threads).
        let seen = Mutex<[GroupingProgress.Snapshot]>([]), watched = GroupingProgress()
        _ = try Grouper(threshold: 10).groups(of: photos, progress: watched, shouldStop: {
            let now = watched.snapshot
            seen.withLock { $0.append(now) }
            return false
        })
        let steps = seen.withLock { $0 }
        let searched = steps.last { $0.step == .searching }, judged = steps.last { $0.step == .judging }
        #expect(searched?.total == 40, "one search row per distinct content (the exact copy is searched once)")
        #expect(judged.map { $0.total >= 20 } == true, "at least the 20 look-alike pairs were candidates")
        // Then the neighbours (next to each other in their folder, no capture times), before the listing.
        let order = steps.map(\.step).reduce(into: [GroupingProgress.Step]()) { if $0.last != $1 { $0.append($1) } }
        #expect(order.firstIndex(of: .neighbours).map { index in order.firstIndex(of: .judging).map { $0 < index } ?? false } == true, "\(order)")
    }

    @Test("the dHash check keeps pHash look-alikes with different structure apart")
    func dHashCheck() {
        let photos = [photo(1, "/x", sha: 1, pHash: 0, dHash: 0), photo(2, "/y", sha: 2, pHash: 1, dHash: .max)]
        #expect(Grouper(threshold: 10).groups(of: photos).isEmpty)
    }

    @Test("the centre a group is built around: most pixels, then largest file")
    func keeper() {
        let grouper = Grouper()
        #expect(grouper.isBetterCentre(photo(1, "/a", sha: 1, pHash: 0, pixels: 200), than: photo(2, "/b", sha: 2, pHash: 0, pixels: 100)))
        #expect(grouper.isBetterCentre(photo(1, "/a", sha: 1, pHash: 0, size: 2000), than: photo(2, "/b", sha: 2, pHash: 0, size: 1000)))
        #expect(!grouper.isBetterCentre(photo(1, "/a", sha: 1, pHash: 0, size: 1000), than: photo(2, "/b", sha: 2, pHash: 0, size: 2000)))
    }

    // MARK: pipeline 3: windows and thumbnails, on photos analysed for real

    /// A white caption box in the bottom-right corner, as a watermark.
    func watermarked(_ image: RGBImage) -> RGBImage {
        var out = image
        let boxHeight = image.height / 14, boxWidth = image.width / 4
        for y in (image.height - boxHeight - image.height / 50)..<(image.height - image.height / 50) {
            for x in (image.width - boxWidth - image.width / 60)..<(image.width - image.width / 60) {
                for channel in 0..<3 { out.pixels[(y * image.width + x) * 3 + channel] = 255 }
            }
        }
        return out
    }

    @Test("crops and a corner watermark group with their original; other photos, even with the same watermark, do not")
    func windowsAndThumbnails() throws {
        // Dark photos: a white box moves their whole-frame pHash the most.
        let scene = SyntheticPhoto.make(seed: 31, width: 1200, height: 900).brightened(by: 0.35)
        let other = SyntheticPhoto.make(seed: 32, width: 1200, height: 900).brightened(by: 0.35)
        let photos = [
            try GroupingPhoto.analysed(1, "/a/original.jpg", scene),
            try GroupingPhoto.analysed(2, "/a/crop-offcentre.jpg", scene.cropped(x: 84, y: 27, width: 1080, height: 810)),
            try GroupingPhoto.analysed(3, "/a/crop-tight.jpg", scene.cropped(x: 120, y: 90, width: 960, height: 720)),
            try GroupingPhoto.analysed(4, "/a/watermarked.jpg", watermarked(scene)),
            try GroupingPhoto.analysed(5, "/b/other-watermarked.jpg", watermarked(other)),
            try GroupingPhoto.analysed(6, "/b/other.jpg", other.cropped(x: 0, y: 0, width: 1100, height: 850)),
        ]
        let groups = Grouper().groups(of: photos)
        #expect(groups.map { Set($0.members.map(\.photoID)) } == [[1, 2, 3, 4], [5, 6]])

        // The windows, not the whole frames, are what found the crops and the watermark here.
        let wholeFrameOnly = photos.map { photo in
            var photo = photo
            photo.windowPHashes = []
            return photo
        }
        let byFrames = Grouper().groups(of: wholeFrameOnly).map { Set($0.members.map(\.photoID)) }
        #expect(!byFrames.contains([1, 2, 3, 4]), "whole frames alone found every edit: the test no longer exercises windows")

        // The shared watermark makes the two scenes candidates; the thumbnail check is what
        // keeps them apart (a limit of 1 accepts every candidate). Even then the other scene's
        // crop (6) stays out: it is a candidate of 5 only, and groups do not chain.
        var lax = Grouper()
        lax.judge.windowConfirmation = 1
        lax.judge.frameConfirmation = 1
        lax.judge.sceneChangeShare = 2  // and no local change tells them apart either
        // Nor their colours (the colour order tells these two scenes apart too): no chroma layouts.
        let gray = photos.map { photo in var photo = photo; photo.chroma = []; return photo }
        let laxGroups = lax.groups(of: gray).map { Set($0.members.map(\.photoID)) }
        #expect(laxGroups.contains { $0.isSuperset(of: [4, 5]) }, "\(laxGroups)")
        #expect(!laxGroups.contains { $0.isSuperset(of: [1, 6]) }, "\(laxGroups)")
    }
}
