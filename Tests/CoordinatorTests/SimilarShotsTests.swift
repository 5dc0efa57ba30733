@testable import Coordinator
import Analysis
import Testing

/// Similar shots: different shots of one moment (capture times within the window) are a
/// `similar` group of their own, never near-duplicates; edits that keep the original's capture
/// time stay near.
@Suite("Similar shots", .timeLimit(.minutes(1)))
struct SimilarShotsTests {
    static let thumbnail: [UInt8] = (0..<1024).map { (index: Int) -> UInt8 in
        let value: Int = (index * 37 + (index / 32) * 11) % 256
        return UInt8(value)
    }

    func photo(_ id: Int64, _ path: String, time: String?, pixels: Int = 4000, thumbnail: [UInt8] = Self.thumbnail) -> GroupingPhoto {
        GroupingPhoto(id: id, path: path, sha256: [UInt8(id)], pHash: 0xF0F0_F0F0_F0F0_F0F0, dHash: 0,
                      windowPHashes: [UInt64](repeating: 0x1234_5678_9ABC_DEF0, count: FeatureWindow.crops.count),
                      thumbnail: thumbnail, width: pixels, height: pixels * 3 / 4, fileSize: Int64(pixels),
                      sharpness: 1, captureTime: time.flatMap(CaptureTime.seconds))
    }

    @Test("capture times: EXIF dates, fractions of a second, UTC offsets; garbage is no time")
    func captureTimes() throws {
        let plain = try #require(CaptureTime.seconds("2024:06:01 10:02:03"))
        #expect(plain == 1_717_236_123)
        #expect(CaptureTime.seconds("2024:06:01 10:02:03.45") == plain + 0.45)
        #expect(CaptureTime.seconds("2024:06:01 10:02:03+02:00") == plain - 7200)
        #expect(CaptureTime.seconds("2024:06:01 10:02:03.5-01:30") == plain + 0.5 + 5400)
        for bad in ["", "0000:00:00 00:00:00", "2024:13:01 10:02:03", "    :  :     :  :  ", "yesterday"] {
            #expect(CaptureTime.seconds(bad) == nil, "\(bad)")
        }
    }

    @Test("the judge: same time or none is near; another time within the window is similar; beyond it, nothing")
    func judge() {
        let judge = PairJudge()
        let frames = Grouper.Pairing(slotA: 0, slotB: 0)
        let original = photo(1, "/o.jpg", time: "2024:06:01 10:02:03.10")
        #expect(judge.relation(original, photo(2, "/edit.jpg", time: "2024:06:01 10:02:03.10"), frames) == .near)
        #expect(judge.relation(original, photo(3, "/export.png", time: nil), frames) == .near)
        #expect(judge.relation(original, photo(4, "/burst.jpg", time: "2024:06:01 10:02:03.40"), frames) == .similar)
        #expect(judge.relation(original, photo(5, "/later.jpg", time: "2024:06:01 10:02:09"), frames) == nil)
    }

    @Test("a burst beside an edited copy: a near group of the copy, a similar group of its keeper and the other shot")
    func groups() throws {
        let photos = [
            photo(1, "/shoot/IMG_1.jpg", time: "2024:06:01 10:02:03.10"),
            photo(2, "/export/IMG_1_small.jpg", time: "2024:06:01 10:02:03.10", pixels: 1000),
            photo(3, "/shoot/IMG_2.jpg", time: "2024:06:01 10:02:03.60"),
            photo(4, "/shoot/IMG_3.jpg", time: "2024:06:01 10:02:04.20"),
        ]
        let groups = Grouper().groups(of: photos)
        #expect(groups.count == 2, "\(groups)")
        let near = try #require(groups.first { $0.kind == .near })
        #expect(Set(near.members.map(\.photoID)) == [1, 2] && near.keeper == 1)
        let similar = try #require(groups.first { $0.kind == .similar })
        #expect(Set(similar.members.map(\.photoID)) == [1, 3, 4], "the near group stands in through its keeper")
    }
}
