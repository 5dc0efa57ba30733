@testable import Analysis
import Testing

@Suite("EXIF orientation", .timeLimit(.minutes(5)))
struct OrientationTests {
    // Stored 3 wide, 2 high:
    //   1 2 3
    //   4 5 6
    let stored = GrayImage(width: 3, height: 2, pixels: [1, 2, 3, 4, 5, 6])

    @Test("each of the eight orientations shows the image the way a viewer would", arguments: [
        (1, 3, [1, 2, 3, 4, 5, 6]),
        (2, 3, [3, 2, 1, 6, 5, 4]),        // mirrored horizontally
        (3, 3, [6, 5, 4, 3, 2, 1]),        // rotated 180
        (4, 3, [4, 5, 6, 1, 2, 3]),        // mirrored vertically
        (5, 2, [1, 4, 2, 5, 3, 6]),        // transposed
        (6, 2, [4, 1, 5, 2, 6, 3]),        // rotated 90 clockwise to view
        (7, 2, [6, 3, 5, 2, 4, 1]),        // transversed
        (8, 2, [3, 6, 2, 5, 1, 4]),        // rotated 90 counter-clockwise to view
    ])
    func orientations(orientation: Int, width: Int, pixels: [UInt8]) {
        let shown = stored.oriented(orientation)
        #expect(shown.width == width)
        #expect(shown.pixels == pixels)
    }

    @Test("a JPEG's EXIF orientation is read back")
    func exifRoundTrip() throws {
        let image = SyntheticPhoto.make(seed: 3, width: 64, height: 48)
        for orientation: UInt16 in 1...8 {
            let jpeg = try JPEGEncoder.encode(rgb: image.pixels, width: 64, height: 48, quality: 80,
                                              exif: EXIFBuilder.orientationBlock(orientation))
            #expect(JPEGMetadataReader.read(jpeg).orientation == Int(orientation))
        }
        let plain = try JPEGEncoder.encode(rgb: image.pixels, width: 64, height: 48, quality: 80)
        #expect(JPEGMetadataReader.read(plain).orientation == 1)
    }

    @Test("an EXIF-rotated copy hashes like the original")
    func rotatedCopyMatches() throws {
        let image = SyntheticPhoto.make(seed: 5, width: 640, height: 480)
        let original = try JPEGEncoder.encode(rgb: image.pixels, width: 640, height: 480, quality: 90)
        let turned = image.rotatedCounterClockwise()
        let rotated = try JPEGEncoder.encode(rgb: turned.pixels, width: turned.width, height: turned.height, quality: 90,
                                             exif: EXIFBuilder.orientationBlock(6))
        let a = try PhotoAnalyzer.analyze(original, path: "a.jpg", options: AnalysisOptions())
        let b = try PhotoAnalyzer.analyze(rotated, path: "b.jpg", options: AnalysisOptions())
        #expect(b.width == 640 && b.height == 480, "pixel size is reported after orientation")
        #expect(b.metadata.orientation == 6)
        #expect(PerceptualHash.distance(a.pHash, b.pHash) <= 2)
    }

    @Test("malformed EXIF blocks yield defaults, never a crash (libexif through ExifReader)")
    func hostileTIFF() {
        #expect(ExifReader.read(tiff: EXIFBuilder.orientationBlock(6)[...]).orientation == 6, "the intact block reads")
        var generator = SplitMix64(seed: 99)
        for _ in 0..<5_000 {
            var block = EXIFBuilder.orientationBlock(6)
            for _ in 0..<3 { block[Int(generator.next() % UInt64(block.count))] = UInt8(truncatingIfNeeded: generator.next()) }
            let length = Int(generator.next() % UInt64(block.count + 1))
            let metadata = ExifReader.read(tiff: block[0..<length])
            #expect((1...8).contains(metadata.orientation))
        }
        #expect(ExifReader.read(tiff: []).orientation == 1)
        #expect(ExifReader.read(payload: []).orientation == 1)
    }
}
