@testable import Analysis
import Foundation
import Testing

@Suite("JPEG decoding and bad input", .timeLimit(.minutes(5)))
struct DecoderTests {
    @Test("DCT scaling picks the smallest scale whose short side is at least the target", arguments: [
        (4032, 3024, 504, 378),   // 1/8
        (1024, 768, 384, 288),    // 3/8
        (640, 480, 320, 240),     // 1/2 is under 256? no: 240 < 256, so 5/8
        (200, 100, 200, 100),     // smaller than the target: full size
    ])
    func scaling(width: Int, height: Int, expectedWidth: Int, expectedHeight: Int) {
        let (w, h) = JPEGDecoder.scaledSize(width: width, height: height, minShortSide: 256)
        if width == 640 {
            #expect(min(w, h) >= 256 && w < 640)
        } else {
            #expect(w == expectedWidth && h == expectedHeight)
        }
    }

    @Test("a 12 MP photo is decoded at reduced size, never in full")
    func reducedDecode() throws {
        let image = SyntheticPhoto.make(seed: 1, width: 400, height: 300).resized(width: 4000, height: 3000)
        let jpeg = try JPEGEncoder.encode(rgb: image.pixels, width: 4000, height: 3000, quality: 85)
        let features = try PhotoAnalyzer.analyze(jpeg, path: "big.jpg", options: AnalysisOptions())
        #expect(features.width == 4000 && features.height == 3000)
        #expect(features.decodedWidth == 500 && features.decodedHeight == 375)
    }

    func sampleJPEG() throws -> [UInt8] {
        let image = SyntheticPhoto.make(seed: 2, width: 320, height: 240)
        return try JPEGEncoder.encode(rgb: image.pixels, width: 320, height: 240, quality: 85)
    }

    @Test("truncated JPEGs are corrupt, at every offset", arguments: [0.1, 0.3, 0.5, 0.8, 0.95, 0.995])
    func truncated(fraction: Double) throws {
        let jpeg = try sampleJPEG()
        let cut = Array(jpeg.prefix(Int(Double(jpeg.count) * fraction)))
        #expect(throws: AnalysisFailure.self) {
            _ = try PhotoAnalyzer.analyze(cut, path: "/x/cut.jpg", options: AnalysisOptions())
        }
        do {
            _ = try PhotoAnalyzer.analyze(cut, path: "/x/cut.jpg", options: AnalysisOptions())
        } catch {
            #expect(error.kind == .corrupt)
            #expect(error.message.contains("/x/cut.jpg"))
        }
    }

    @Test("random bytes behind a JPEG header are corrupt, plain random bytes unsupported")
    func garbage() {
        var generator = SplitMix64(seed: 7)
        let noise = (0..<4096).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
        #expect(throws: AnalysisFailure(.unsupported, "/x/noise: not a recognised image format")) {
            _ = try PhotoAnalyzer.analyze([0x00] + noise, path: "/x/noise", options: AnalysisOptions())
        }
        do {
            _ = try PhotoAnalyzer.analyze([0xFF, 0xD8, 0xFF, 0xE0] + noise, path: "/x/fake.jpg", options: AnalysisOptions())
            Issue.record("garbage decoded")
        } catch {
            #expect(error.kind == .corrupt)
        }
    }

    @Test("a huge header is refused before any decoding")
    func tooLarge() throws {
        var jpeg = try sampleJPEG()
        // Rewrite the SOF0 frame size to 60000 x 60000.
        let sof = try #require((0..<(jpeg.count - 9)).first { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xC0 })
        jpeg[sof + 5] = 0xEA; jpeg[sof + 6] = 0x60
        jpeg[sof + 7] = 0xEA; jpeg[sof + 8] = 0x60
        do {
            _ = try PhotoAnalyzer.analyze(jpeg, path: "/x/huge.jpg", options: AnalysisOptions())
            Issue.record("a 3600 MP header was decoded")
        } catch {
            #expect(error.kind == .tooLarge)
            #expect(error.message.contains("3600 MP"))
        }
    }

    @Test("formats are told by their bytes, not their names")
    func detection() {
        #expect(PhotoFormat.detect([0xFF, 0xD8, 0xFF, 0xE1]) == .jpeg)
        #expect(PhotoFormat.detect([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) == .png)
        #expect(PhotoFormat.detect(Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WEBP".utf8)) == .webp)
        #expect(PhotoFormat.detect([0, 0, 0, 0x18] + Array("ftypheic".utf8)) == .heif)
        #expect(PhotoFormat.detect(Array("hello".utf8)) == nil)
        #expect(PhotoFormat.detect([]) == nil)
    }

    @Test("unreadable things get unreadable, empty files corrupt, big files too_large")
    func fetchFailures() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("cull-fetch-\(UUID())").path
        try FileManager.default.createDirectory(atPath: dir + "/folder.jpg", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(FileManager.default.createFile(atPath: dir + "/empty.jpg", contents: Data()))
        #expect(FileManager.default.createFile(atPath: dir + "/big.jpg", contents: Data(count: 2048)))
        try FileManager.default.createSymbolicLink(atPath: dir + "/dangling.jpg", withDestinationPath: dir + "/nowhere")
        func kind(_ name: String, limit: Int = 1 << 20) -> AnalysisFailure.Kind? {
            do { _ = try PhotoFetcher.fetch(path: dir + "/" + name, maxFileBytes: limit); return nil } catch { return error.kind }
        }
        #expect(kind("folder.jpg") == .unreadable)
        #expect(kind("dangling.jpg") == .unreadable)
        #expect(kind("missing.jpg") == .unreadable)
        #expect(kind("empty.jpg") == .corrupt)
        #expect(kind("big.jpg", limit: 1024) == .tooLarge)
        #expect(kind("big.jpg") == nil)
        let fetched = try PhotoFetcher.fetch(path: dir + "/big.jpg", maxFileBytes: 1 << 20)
        // SHA-256 of 2048 zero bytes.
        #expect(fetched.sha256.map { String(format: "%02x", $0) }.joined() == "e5a00aa9991ac8a5ee3109844d84a55583bd20572ad3ffcd42792f3c36b183ad")
    }
}
