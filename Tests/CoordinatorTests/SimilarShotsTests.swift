@testable import Coordinator
import Analysis
import Foundation
import Testing

/// Similar shots: different shots of one moment (capture times within the window) are a
/// `similar` group of their own, never near-duplicates; edits that keep the original's capture
/// time stay near.
@Suite("Similar shots", .timeLimit(.minutes(5)))
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
        #expect(CaptureTime.wallClockSeconds("2024:06:01 10:02:03.5-01:30") == plain, "as written: no fraction, no offset")
        #expect(CaptureTime.seconds(String("x2024:06:01 10:02:03".dropFirst())) == plain, "a substring's bytes, read in place")
        for bad in ["", "0000:00:00 00:00:00", "2024:13:01 10:02:03", "    :  :     :  :  ", "yesterday", "2024:06:01 10:02:0"] {
            #expect(CaptureTime.seconds(bad) == nil, "\(bad)")
            #expect(CaptureTime.wallClockSeconds(bad) == nil, "\(bad)")
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

    @Test("a bracket without fractions of a second: one time, other exposure settings, similar; an edit keeps its settings and stays near; unknown settings say nothing")
    func bracketAtOneTime() {
        let judge = PairJudge()
        let frames = Grouper.Pairing(slotA: 0, slotB: 0)
        func shot(_ id: Int64, _ time: Double, bias: Double?, known: Bool = true) -> GroupingPhoto {
            var photo = photo(id, "/\(id).jpg", time: "2024:06:01 10:02:03")
            photo.exposure = known ? ShotSettings.key(exposureTime: time, fNumber: 5.6, iso: 200, exposureBias: bias) : 0
            return photo
        }
        let middle = shot(1, 1.0 / 125, bias: 0)
        #expect(judge.relation(middle, shot(2, 1.0 / 200, bias: -2.0 / 3), frames) == .similar)
        #expect(judge.relation(middle, shot(3, 1.0 / 125, bias: 0.7), frames) == .similar, "the bias alone differs")
        #expect(judge.relation(middle, shot(4, 1.0 / 125, bias: 0), frames) == .near, "an edit: the same settings")
        #expect(judge.relation(middle, shot(5, 1.0 / 200, bias: -2.0 / 3, known: false), frames) == .near, "a row without settings")
        #expect(ShotSettings.key(exposureTime: nil, fNumber: nil, iso: nil, exposureBias: 0) == 0, "0 EV alone is what no settings send")
        #expect(ShotSettings.key(exposureTime: .nan, fNumber: -1, iso: 0, exposureBias: .infinity) == 0, "no setting, not a crash")
        #expect(ShotSettings.key(exposureTime: 1.0 / 125, fNumber: 5.6, iso: 200, exposureBias: nil)
            == ShotSettings.key(exposureTime: 0.008000000001, fNumber: 5.6, iso: 200, exposureBias: nil), "rounded, as written")
    }

    /// A smooth textured thumbnail; `lit` brightens the region right of 0.5 and above 0.5 of
    /// the frame by 40%: the same view with part of the scene lit differently.
    static func sceneThumbnail(lit: Bool = false) -> [UInt8] {
        (0..<1024).map { (index: Int) -> UInt8 in
            let x = (Double(index % 32) + 0.5) / 32, y = (Double(index / 32) + 0.5) / 32
            var value = 110 + 50 * sin(x * 19) * cos(y * 13) + 35 * sin((x + 2 * y) * 11)
            if lit && x > 0.5 && x < 0.85 && y > 0.1 && y < 0.5 { value *= 1.4 }
            return UInt8(max(0, min(255, value.rounded())))
        }
    }

    @Test("without capture times, what differs decides: a region of the scene lit differently is another shot, similar; an edit stays near")
    func localChange() throws {
        let judge = PairJudge()
        let frames = Grouper.Pairing(slotA: 0, slotB: 0)
        let original = photo(1, "/o.jpg", time: nil, thumbnail: Self.sceneThumbnail())
        let copy = photo(2, "/small.jpg", time: nil, pixels: 1000, thumbnail: Self.sceneThumbnail())
        let otherShot = photo(3, "/o-2.jpg", time: nil, thumbnail: Self.sceneThumbnail(lit: true))
        #expect(judge.relation(original, copy, frames) == .near)
        #expect(judge.relation(original, otherShot, frames) == .similar)

        let groups = Grouper().groups(of: [original, copy, otherShot])
        let near = try #require(groups.first { $0.kind == .near })
        #expect(Set(near.members.map(\.photoID)) == [1, 2])
        let similar = try #require(groups.first { $0.kind == .similar })
        #expect(Set(similar.members.map(\.photoID)) == [1, 3])
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
