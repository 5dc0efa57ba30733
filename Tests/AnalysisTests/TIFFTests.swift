@testable import Analysis
import Testing

/// Issue 12, point 2: TIFF photos through libtiff, 8- and 16-bit, RGB and grayscale, strips and
/// tiles, a reduced-size path for large files, the Orientation tag and camera tags.
@Suite("TIFF", .timeLimit(.minutes(5)))
struct TIFFTests {
    let scene = SyntheticPhoto.make(seed: 41, width: 640, height: 480)

    func analyze(_ bytes: [UInt8], _ options: AnalysisOptions = AnalysisOptions()) throws(AnalysisFailure) -> PhotoFeatures {
        try PhotoAnalyzer.analyze(bytes, path: "/lib/scan.tif", options: options)
    }

    func pngFeatures(_ image: RGBImage) throws -> PhotoFeatures {
        let png = try #require(PNGDecoder.encode(rgb: image.pixels, width: image.width, height: image.height))
        return try PhotoAnalyzer.analyze(png, path: "/lib/export.png", options: AnalysisOptions())
    }

    @Test("8- and 16-bit, RGB and grayscale, strips and tiles: each hashes as the PNG of the same pixels", arguments: [
        SampleTIFF.Layout(), SampleTIFF.Layout(bitsPerSample: 16), SampleTIFF.Layout(tileSide: 64),
        SampleTIFF.Layout(bitsPerSample: 16, tileSide: 48), SampleTIFF.Layout(grayscale: true),
    ])
    func layouts(_ layout: SampleTIFF.Layout) throws {
        let features = try analyze(SampleTIFF.encode(scene, layout: layout))
        let png = try pngFeatures(scene)
        #expect(features.format == .tiff && features.width == 640 && features.height == 480)
        #expect(min(features.decodedWidth, features.decodedHeight) == 256, "reduced as the other formats are")
        let distance = PerceptualHash.distance(features.pHash, png.pHash)
        #expect(distance <= (layout.grayscale ? 2 : 0), "distance \(distance)")
        #expect(features.thumbnail == png.thumbnail || layout.grayscale)
        #expect(layout.grayscale ? features.chroma.isEmpty : features.chroma == png.chroma, "colour layout (none for gray)")
    }

    @Test("a large TIFF is read in bands and folded into block averages: the same hashes as its PNG, a small decode")
    func largeFile() throws {
        let big = SyntheticPhoto.make(seed: 42, width: 1200, height: 900)
        let features = try analyze(SampleTIFF.encode(big))
        #expect(features.width == 1200 && features.height == 900)
        #expect(min(features.decodedWidth, features.decodedHeight) == 256)
        let distance = PerceptualHash.distance(features.pHash, try pngFeatures(big).pHash)
        #expect(distance <= 4, "distance \(distance)")
        var options = AnalysisOptions()
        options.maxPixels = 1_000_000
        #expect(throws: AnalysisFailure.self) { _ = try analyze(SampleTIFF.encode(big), options) }
        do {
            _ = try analyze(SampleTIFF.encode(big), options)
        } catch {
            #expect(error.kind == .tooLarge && error.message.contains("1200x900"))
        }
    }

    @Test("the Orientation tag turns the picture as EXIF orientation does; Make, Model and the EXIF capture time are kept")
    func orientationAndCamera() throws {
        // Stored turned a quarter to the left, tagged 6 ("rotate 90° clockwise to show"): the
        // displayed pixel (x, y) is stored at column y, row 639 - x.
        var stored = RGBImage(width: 480, height: 640, pixels: [UInt8](repeating: 0, count: 480 * 640 * 3))
        for y in 0..<480 {
            for x in 0..<640 {
                let from = 3 * (y * 640 + x), to = 3 * ((639 - x) * 480 + y)
                stored.pixels[to..<(to + 3)] = scene.pixels[from..<(from + 3)]
            }
        }
        let features = try analyze(SampleTIFF.encode(stored, layout: SampleTIFF.Layout(orientation: 6, make: "Nikon", model: "Coolscan 5000",
                                                                                     captureTime: "2024:06:01 10:02:03")))
        #expect(features.width == 640 && features.height == 480, "shown upright")
        let distance = PerceptualHash.distance(features.pHash, try pngFeatures(scene).pHash)
        #expect(distance <= 0, "distance \(distance)")
        #expect(features.metadata.orientation == 6)
        #expect(features.metadata.cameraMake == "Nikon" && features.metadata.cameraModel == "Coolscan 5000")
        #expect(features.metadata.captureTime == "2024:06:01 10:02:03", "from the EXIF directory, through libtiff")
        // The HTML review shows it upright too.
        let thumbnail = try ReviewThumbnail.make(SampleTIFF.encode(stored, layout: SampleTIFF.Layout(orientation: 6)), path: "/lib/scan.tif")
        let header = try JPEGDecoder.header(thumbnail)
        #expect(header.width == 200 && header.height == 150)
    }

    @Test("a TIFF whose image is marked reduced (as raws mark their preview) is offered to LibRaw first, then read as the TIFF it is")
    func markedReduced() throws {
        let bytes = SampleTIFF.encode(scene, layout: SampleTIFF.Layout(markedReduced: true))
        #expect(PhotoFormat.detectRefined(bytes) == .raw)
        let features = try analyze(bytes)
        #expect(features.format == .tiff && features.width == 640)
        #expect(PerceptualHash.distance(features.pHash, try pngFeatures(scene).pHash) == 0)
    }

    @Test("a truncated or damaged TIFF is corrupt, with a message naming the file")
    func damaged() throws {
        let tiff = SampleTIFF.encode(scene)
        var wrongOffset = tiff
        wrongOffset[4] = 0xF0  // the first directory's offset points past the end
        for broken in [Array(tiff.prefix(tiff.count / 2)), Array(tiff.prefix(12)), wrongOffset,
                       [0x49, 0x49, 0x2A, 0x00] + [UInt8](repeating: 0xAB, count: 4096)] {
            do {
                _ = try analyze(broken)
                Issue.record("a damaged TIFF of \(broken.count) bytes decoded")
            } catch {
                #expect(error.kind == .corrupt, "\(error.message)")
                #expect(error.message.contains("/lib/scan.tif"))
            }
        }
    }
}
