@testable import Analysis
import Testing

/// `TurnedFrame`: the planes and the pHash of a frame turned a quarter turn, worked out from
/// what a row already keeps, against a copy whose pixels were turned and analysed for real.
@Suite("Turned frames")
struct TurnedFrameTests {
    @Test("a plane turned clockwise puts its top-left cell at the top right; four turns give it back")
    func planes() {
        let plane: [UInt8] = [1, 2, 3,
                              4, 5, 6,
                              7, 8, 9]
        #expect(TurnedFrame.turned(plane, side: 3) == [7, 4, 1,
                                                       8, 5, 2,
                                                       9, 6, 3])
        let thumbnail = (0..<1024).map { UInt8(truncatingIfNeeded: $0 &* 37) }
        var turned = thumbnail
        for _ in 0..<4 { turned = TurnedFrame.turned(turned) }
        #expect(turned == thumbnail && TurnedFrame.turned(thumbnail) != thumbnail)
        // A chroma layout turns plane by plane; anything else is left as it is.
        let chroma = (0..<512).map { UInt8(truncatingIfNeeded: $0) }
        let turnedChroma = TurnedFrame.turnedChroma(chroma)
        #expect(Array(turnedChroma[0..<256]) == TurnedFrame.turned(Array(chroma[0..<256]), side: 16))
        #expect(Array(turnedChroma[256...]) == TurnedFrame.turned(Array(chroma[256...]), side: 16))
        #expect(TurnedFrame.turnedChroma([]) == [])
        // The window across the top 20% lies down the right side once turned.
        #expect(TurnedFrame.turned(FeatureWindow(x: 0, y: 0, width: 1, height: 0.2)) == FeatureWindow(x: 0.8, y: 0, width: 0.2, height: 1))
    }

    @Test("the turned frame's pHash from the thumbnail is within a few bits of a turned copy's, either way round")
    func hashes() throws {
        for seed in [3, 17, 29] as [UInt64] {
            let photo = SyntheticPhoto.make(seed: seed, width: 900, height: 600)
            let original = try PhotoAnalyzer.analyze(JPEGEncoder.encode(rgb: photo.pixels, width: 900, height: 600, quality: 90),
                                                     path: "/a/o.jpg", options: AnalysisOptions())
            let clockwise = photo.turned(clockwise: true), counter = photo.turned(clockwise: false)
            let right = try PhotoAnalyzer.analyze(JPEGEncoder.encode(rgb: clockwise.pixels, width: 600, height: 900, quality: 90),
                                                  path: "/a/r.jpg", options: AnalysisOptions())
            let left = try PhotoAnalyzer.analyze(JPEGEncoder.encode(rgb: counter.pixels, width: 600, height: 900, quality: 90),
                                                 path: "/a/l.jpg", options: AnalysisOptions())
            let turnedOriginal = try #require(TurnedFrame.pHash(thumbnail: original.thumbnail))
            let turnedLeft = try #require(TurnedFrame.pHash(thumbnail: left.thumbnail))
            // Clockwise: the copy's frame is the original's turned frame. Counter-clockwise: the
            // original is the copy turned clockwise.
            #expect(PerceptualHash.distance(turnedOriginal, right.pHash) <= 4, "seed \(seed)")
            #expect(PerceptualHash.distance(turnedLeft, original.pHash) <= 4, "seed \(seed)")
            // And the frames themselves are far apart: nothing else pairs them.
            #expect(PerceptualHash.distance(original.pHash, right.pHash) > 16, "seed \(seed)")
            // The thumbnail of the turned copy is the original's turned, up to rounding.
            let planeError = zip(TurnedFrame.turned(original.thumbnail), right.thumbnail).map { abs(Int($0) - Int($1)) }.max() ?? 0
            #expect(planeError <= 6, "seed \(seed): \(planeError)")
        }
        #expect(TurnedFrame.pHash(thumbnail: []) == nil)
    }
}
