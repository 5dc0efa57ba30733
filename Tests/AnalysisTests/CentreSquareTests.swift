@testable import Analysis
import Testing

/// `CentreSquare`: the window and the pHash of a frame's centre square, worked out from the
/// layout thumbnail, against a copy cropped to a square and analysed for real. The limit is a
/// hang guard above the whole parallel unit-test run (scripts/test.sh), which these quick tests
/// can wait behind: at 2 minutes they ran out on a host where that run took 166 s.
@Suite("Centre squares", .timeLimit(.minutes(5)))
struct CentreSquareTests {
    @Test("wide and tall frames have a centre square; frames near square and panoramas have none")
    func windows() throws {
        let wide = try #require(CentreSquare.window(width: 1600, height: 900))
        #expect(abs(wide.width - 0.5625) < 1e-9 && abs(wide.x - 0.21875) < 1e-9 && wide.y == 0 && wide.height == 1)
        let tall = try #require(CentreSquare.window(width: 600, height: 900))
        #expect(abs(tall.height - 2.0 / 3) < 1e-9 && abs(tall.y - 1.0 / 6) < 1e-9 && tall.x == 0 && tall.width == 1)
        #expect(CentreSquare.window(width: 1250, height: 1000) != nil)
        #expect(CentreSquare.window(width: 1200, height: 1000) == nil)
        #expect(CentreSquare.window(width: 1000, height: 1000) == nil)
        #expect(CentreSquare.window(width: 0, height: 10) == nil)
        #expect(CentreSquare.window(width: 3000, height: 1000) != nil && CentreSquare.window(width: 1000, height: 3000) != nil)
        #expect(CentreSquare.window(width: 3100, height: 1000) == nil && CentreSquare.window(width: 2400, height: 525) == nil)
        #expect(CentreSquare.pHash(thumbnail: [], width: 1600, height: 900) == nil)
        #expect(CentreSquare.pHash(thumbnail: [UInt8](repeating: 9, count: 1024), width: 1000, height: 1000) == nil)
    }

    @Test("the centre square's pHash from the thumbnail is within a few bits of a square copy's, wide or tall")
    func hashes() throws {
        for (seed, width, height) in [(3, 1600, 900), (17, 900, 600), (29, 1280, 800), (41, 600, 900)] as [(UInt64, Int, Int)] {
            let photo = SyntheticPhoto.make(seed: seed, width: width, height: height)
            let original = try PhotoAnalyzer.analyze(JPEGEncoder.encode(rgb: photo.pixels, width: width, height: height, quality: 90),
                                                     path: "/a/o.jpg", options: AnalysisOptions())
            let side = min(width, height)
            let square = photo.cropped(x: (width - side) / 2, y: (height - side) / 2, width: side, height: side)
            let copy = try PhotoAnalyzer.analyze(JPEGEncoder.encode(rgb: square.pixels, width: side, height: side, quality: 85),
                                                 path: "/a/s.jpg", options: AnalysisOptions())
            let derived = try #require(CentreSquare.pHash(thumbnail: original.thumbnail, width: width, height: height))
            #expect(PerceptualHash.distance(derived, copy.pHash) <= 6, "seed \(seed)")
            // The frames themselves are far apart, and so is every fixed window: nothing else pairs them.
            #expect(PerceptualHash.distance(original.pHash, copy.pHash) > 10, "seed \(seed)")
            let nearestWindow = original.windowPHashes.map { PerceptualHash.distance($0, copy.pHash) }.min() ?? 64
            #expect(nearestWindow > 6, "seed \(seed): a window at \(nearestWindow) bits")
        }
    }
}
