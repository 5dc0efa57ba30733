import Analysis
import Foundation
import Testing

/// `--previews auto` on HEIC: libheif's thumbnail item stands in for the primary image. The file
/// is made by libheif's own `heif-enc` (scripts/setup.sh installs it), as a phone would store it.
@Suite("HEIF previews", .timeLimit(.minutes(5)))
struct HEIFPreviewTests {
    @Test("a HEIC's thumbnail item is analysed with previews on, the primary image with them off; both agree")
    func heifThumbnail() async throws {
        let scratch = try Scratch()
        let photo = SyntheticPhoto.make(seed: 43, width: 1600, height: 1200)
        let png = scratch.path + "/photo.png", heic = scratch.path + "/photo.heic"
        let encoded = try #require(PNGDecoder.encode(rgb: photo.pixels, width: photo.width, height: photo.height))
        try Data(encoded).write(to: URL(fileURLWithPath: png))
        let made = try await runCommand("/usr/bin/heif-enc", ["-q", "70", "-t", "320", "-o", heic, png], in: scratch.path)
        #expect(made.status == 0, "heif-enc (libheif-examples) failed: \(made.stderr)")
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: heic)))

        var options = AnalysisOptions()
        options.usePreviews = true
        let viaPreview = try PhotoAnalyzer.analyze(bytes, path: heic, options: options)
        options.usePreviews = false
        let viaPrimary = try PhotoAnalyzer.analyze(bytes, path: heic, options: options)

        #expect(viaPreview.decodedWidth == 320 && viaPreview.decodedHeight == 240, "the 320×240 thumbnail item")
        #expect(viaPrimary.decodedWidth == 341 && viaPrimary.decodedHeight == 256, "the primary image, reduced")
        #expect(viaPreview.width == 1600 && viaPreview.height == 1200, "sizes are the primary image's")
        #expect(PerceptualHash.distance(viaPreview.pHash, viaPrimary.pHash) <= 4)
        let difference = LayoutThumbnail.difference(LayoutThumbnail.cells(of: viaPreview.thumbnail, in: .full),
                                                    LayoutThumbnail.cells(of: viaPrimary.thumbnail, in: .full))
        #expect(difference < 0.03, "\(difference)")
        // The chroma planes come through too, from either image, and match the PNG's colour.
        let fromPNG = try PhotoAnalyzer.analyze(encoded, path: png, options: options).chroma
        for chroma in [viaPreview.chroma, viaPrimary.chroma] {
            #expect(chroma.count == 2 * ChromaLayout.side * ChromaLayout.side)
            let worst = zip(chroma, fromPNG).map { abs(Int($0) - Int($1)) }.max() ?? 255
            #expect(worst <= 10, "a chroma cell differs from the PNG's by \(worst) levels")
        }
    }
}
