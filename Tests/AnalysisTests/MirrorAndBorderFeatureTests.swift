@testable import Analysis
import Testing

/// Pipeline 4's features: the mirror image's pHash, the content inside plain borders, and the
/// band windows (docs/FEATURES.md).
@Suite("Mirror hashes, content boxes and bands", .timeLimit(.minutes(5)))
struct MirrorAndBorderFeatureTests {
    static let photo = SyntheticPhoto.make(seed: 11, width: 1200, height: 900)

    func analyse(_ image: RGBImage) throws -> PhotoFeatures {
        let jpeg = try JPEGEncoder.encode(rgb: image.pixels, width: image.width, height: image.height, quality: 90)
        return try PhotoAnalyzer.analyze(jpeg, path: "/t/photo.jpg", options: AnalysisOptions())
    }

    @Test("a mirrored copy's pHash is the original's mirror pHash, and the other way round")
    func mirrorHash() throws {
        let original = try analyse(Self.photo), mirrored = try analyse(Self.photo.mirrored())
        #expect(PerceptualHash.distance(original.mirrorPHash, mirrored.pHash) <= 4)
        #expect(PerceptualHash.distance(mirrored.mirrorPHash, original.pHash) <= 4)
        // Without the mirror hash the two look unrelated: the feature is what finds them.
        #expect(PerceptualHash.distance(original.pHash, mirrored.pHash) > 16)
    }

    @Test("plain borders are found to the pixel's share and the content's pHash is the original's", arguments: [
        (108, 0, UInt8(255)),   // a white mat above and below (12% of the height each)
        (0, 150, UInt8(0)),     // black pillars left and right
        (60, 60, UInt8(128)),   // a gray frame all round
    ])
    func contentBox(vertical: Int, horizontal: Int, gray: UInt8) throws {
        let original = try analyse(Self.photo)
        #expect(original.contentBox == nil)
        let bordered = try analyse(Self.photo.bordered(vertical: vertical, horizontal: horizontal, gray: gray))
        let box = try #require(bordered.contentBox)
        let width = Double(Self.photo.width + 2 * horizontal), height = Double(Self.photo.height + 2 * vertical)
        #expect(abs(box.x - Double(horizontal) / width) < 0.01 && abs(box.y - Double(vertical) / height) < 0.01)
        #expect(abs(box.width - Double(Self.photo.width) / width) < 0.015 && abs(box.height - Double(Self.photo.height) / height) < 0.015)
        let content = try #require(bordered.contentPHash)
        #expect(PerceptualHash.distance(content, original.pHash) <= 4)
        #expect(PerceptualHash.distance(bordered.pHash, original.pHash) > PerceptualHash.distance(content, original.pHash))
    }

    @Test("no box for a border thinner than 2% of the side, or for a plain image")
    func noBox() {
        let width = 400, height = 300
        var pixels = (0..<(width * height)).map { UInt8(truncatingIfNeeded: ($0 &* 2654435761) >> 13) }
        for x in 0..<width { pixels[x] = 255; pixels[width + x] = 255 }  // two white rows: 0.7%
        #expect(ContentBox.detect(GrayImage(width: width, height: height, pixels: pixels)) == nil)
        #expect(ContentBox.detect(GrayImage(width: width, height: height, pixels: [UInt8](repeating: 90, count: width * height))) == nil)
    }

    @Test("a crop of one side meets the band it came from; a caption band leaves the top band alone")
    func bands() throws {
        let original = try analyse(Self.photo)
        // 22% off the top: the band at y = 20% (window 55).
        let topCut = try analyse(Self.photo.cropped(x: 0, y: 198, width: 1200, height: 702))
        #expect(PerceptualHash.distance(original.windowPHashes[55], topCut.pHash) <= 8)
        #expect(PerceptualHash.distance(original.pHash, topCut.pHash) > 10)
        // An 18% caption band at the bottom: the top band (window 53) of both agrees.
        let captioned = try analyse(Self.photo.banded(bottom: 0.18, gray: 250))
        #expect(PerceptualHash.distance(original.windowPHashes[53], captioned.windowPHashes[53]) <= 6)
    }
}
