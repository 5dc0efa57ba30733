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
        let made = try await runCommand("/usr/bin/heif-enc", ["-q", "70", "-t", "320"] + Self.fastEncoding + ["-o", heic, png], in: scratch.path)
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

    /// x265's fastest preset: the files are laid out the same (meta box first, the thumbnail
    /// item after the primary image), and a 3000×2000 photo takes about a second to encode
    /// instead of seven; with the default preset, several encodes at once beside the other
    /// integration tests once took heif-enc past its 120 s on two cores.
    static let fastEncoding = ["-p", "preset=ultrafast"]

    /// A HEIC made by heif-enc from a camera JPEG (its EXIF block carried over) of
    /// `SyntheticPhoto` `seed`, with a 320-pixel thumbnail item unless `thumbnail` is false,
    /// written to `path`; its bytes.
    static func makeHEIC(at path: String, seed: UInt64 = 47, width: Int = 3000, height: Int = 2000, thumbnail: Bool = true) async throws -> [UInt8] {
        let photo = SyntheticPhoto.make(seed: seed, width: width, height: height)
        let shot = CameraEXIF.Shot(width: width, height: height, captureTime: "2024:06:01 10:02:03")
        let small = try JPEGEncoder.encode(rgb: photo.resized(width: 160, height: 120).pixels, width: 160, height: 120, quality: 85)
        let jpeg = try JPEGEncoder.encode(rgb: photo.pixels, width: width, height: height, quality: 92, exif: CameraEXIF.block(for: shot, thumbnail: small))
        let source = path + ".source.jpg", folder = (path as NSString).deletingLastPathComponent
        try Data(jpeg).write(to: URL(fileURLWithPath: source))
        defer { try? FileManager.default.removeItem(atPath: source) }
        let made = try await runCommand("/usr/bin/heif-enc", ["-q", "60"] + (thumbnail ? ["-t", "320"] : []) + fastEncoding + ["-o", path, source], in: folder)
        #expect(made.status == 0, "heif-enc (libheif-examples) failed: \(made.stderr)")
        return try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
    }

    func heic(in scratch: Scratch, width: Int = 3000, height: Int = 2000, thumbnail: Bool = true) async throws -> (path: String, bytes: [UInt8]) {
        let path = scratch.path + (thumbnail ? "/photo.heic" : "/bare.heic")
        return (path, try await Self.makeHEIC(at: path, width: width, height: height, thumbnail: thumbnail))
    }

    @Test("a HEIC is analysed from its head and its thumbnail item's bytes, the same as from the whole file, reading a fraction of it")
    func heifRanges() async throws {
        let scratch = try Scratch()
        let (path, bytes) = try await heic(in: scratch)
        var options = AnalysisOptions()
        options.usePreviews = true
        let whole = try PhotoAnalyzer.analyze(bytes, path: path, options: options)
        #expect(whole.fromPreview && whole.metadata.captureTime != nil, "the thumbnail item, and the camera's EXIF carried over")

        let head = try #require(try PhotoFetcher.fetchHead(path: path, maxFileBytes: options.maxFileBytes))
        guard case .needsRanges(let ranges) = PhotoAnalyzer.analyzeHead(head.bytes, fileSize: head.fileSize, path: path, options: options) else {
            Issue.record("a HEIC with a thumbnail item names its ranges")
            return
        }
        let pieces = try PhotoFetcher.fetchRanges(path: path, fileSize: head.fileSize, ranges: ranges, maxFileBytes: options.maxFileBytes)
        let read = head.bytes.count + PhotoFetcher.tailBytes + pieces.reduce(0) { $0 + $1.bytes.count }
        #expect(read * 4 < bytes.count, "read \(read) of \(bytes.count) bytes")
        let fromRanges = try #require(PhotoAnalyzer.analyzeRanges(head: head.bytes, pieces: pieces, fileSize: head.fileSize, path: path, options: options))
        #expect(fromRanges == whole)

        // Without those ranges the thumbnail's bytes are zeros: they decode to nothing like it.
        #expect(!ranges.isEmpty)
        let withoutRanges = PhotoAnalyzer.analyzeRanges(head: head.bytes, pieces: [], fileSize: head.fileSize, path: path, options: options)
        #expect(withoutRanges == nil || withoutRanges?.pHash != whole.pHash)
        // Previews off, or no thumbnail item: the whole file is read.
        options.usePreviews = false
        #expect(PhotoAnalyzer.analyzeHead(head.bytes, fileSize: head.fileSize, path: path, options: options).readsWhole)
        options.usePreviews = true
        let (barePath, bare) = try await heic(in: scratch, width: 1600, height: 1200, thumbnail: false)
        #expect(PhotoAnalyzer.analyzeHead(Array(bare.prefix(PhotoFetcher.headBytes)), fileSize: bare.count, path: barePath, options: options).readsWhole)
    }

    @Test("a damaged or hostile meta box never names a range past the file, nor crashes the worker")
    func heifDamagedHead() async throws {
        let scratch = try Scratch()
        let (_, bytes) = try await heic(in: scratch, width: 1600, height: 1200)
        let head = Array(bytes.prefix(PhotoFetcher.headBytes))
        guard case .ranges(let honest) = HEIFHead.extent(head, fileSize: bytes.count) else {
            Issue.record("heif-enc's file names its thumbnail's ranges")
            return
        }
        #expect(!honest.isEmpty || head.count >= bytes.count)
        // Every byte of the boxes before the image data, in turn, set to 0xFF and to 0x00.
        let metaEnd = min(head.count, 2048)
        var outcomes: [String: Int] = [:]
        for index in 0..<metaEnd {
            for value: UInt8 in [0xFF, 0x00] where head[index] != value {
                var damaged = head
                damaged[index] = value
                switch HEIFHead.extent(damaged, fileSize: bytes.count) {
                case .ranges(let ranges):
                    #expect(ranges.allSatisfy { $0.lowerBound >= 0 && $0.upperBound <= bytes.count && !$0.isEmpty }, "byte \(index)")
                    #expect(ranges.reduce(0) { $0 + $1.count } <= bytes.count / HEIFHead.longestRangesShare)
                    outcomes["ranges", default: 0] += 1
                case .needsAtLeast(let needed):
                    #expect(needed > 0, "byte \(index)")
                    outcomes["longer head", default: 0] += 1
                case .readWhole:
                    outcomes["whole", default: 0] += 1
                }
            }
        }
        #expect(outcomes["whole", default: 0] > 0 && outcomes["ranges", default: 0] > 0, "\(outcomes)")
    }
}

extension PhotoAnalyzer.HeadAnalysis {
    var readsWhole: Bool {
        if case .readWhole = self { return true }
        return false
    }
}

