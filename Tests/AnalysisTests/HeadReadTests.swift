@testable import Analysis
import Foundation
import Testing

/// Reading only the head of a camera JPEG: the features its EXIF thumbnail gives are the ones a
/// whole-file read gives, and the head-and-tail digest is never taken for the file's.
@Suite("Head-only reads", .timeLimit(.minutes(5)))
struct HeadReadTests {
    /// A camera-like JPEG well over head and tail together, with a 160×120 EXIF thumbnail.
    static func cameraJPEG(seed: Int = 51) throws -> [UInt8] { try SampleCameraJPEG.encode(seed: UInt64(seed)) }

    static func write(_ bytes: [UInt8]) throws -> String {
        let path = NSTemporaryDirectory() + "cull-head-\(UUID().uuidString).jpg"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test("the head's features are the whole file's through its preview; a file without a thumbnail needs the whole file")
    func sameFeatures() throws {
        let bytes = try Self.cameraJPEG()
        try #require(bytes.count > PhotoFetcher.headBytes + PhotoFetcher.tailBytes)
        var options = AnalysisOptions()
        options.usePreviews = true
        let path = try Self.write(bytes)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let head = try #require(try PhotoFetcher.fetchHead(path: path, maxFileBytes: 1 << 30))
        #expect(head.bytes == Array(bytes.prefix(PhotoFetcher.headBytes)) && head.fileSize == bytes.count && head.sha256IsHeadTail)
        let fromHead = try #require(PhotoAnalyzer.analyzeFromHead(head.bytes, path: path, options: options))
        let whole = try PhotoAnalyzer.analyze(bytes, path: path, options: options)
        #expect(fromHead.fromPreview && whole.fromPreview)
        #expect(fromHead.pHash == whole.pHash && fromHead.thumbnail == whole.thumbnail && fromHead.windowPHashes == whole.windowPHashes)
        #expect(fromHead.width == 2400 && fromHead.height == 1800 && fromHead.metadata.captureTime == whole.metadata.captureTime)

        options.usePreviews = false
        #expect(PhotoAnalyzer.analyzeFromHead(head.bytes, path: path, options: options) == nil, "previews off: the main image")
        options.usePreviews = true
        let plain = SyntheticPhoto.make(seed: 52, width: 2400, height: 1800)
        let noThumbnail = try JPEGEncoder.encode(rgb: plain.pixels, width: 2400, height: 1800, quality: 92)
        #expect(PhotoAnalyzer.analyzeFromHead(Array(noThumbnail.prefix(PhotoFetcher.headBytes)), path: path, options: options) == nil)
    }

    @Test("the markers say how long a head must be: a frame header past the head asks for more; a head holding it says where it ends")
    func extent() throws {
        let bytes = try Self.cameraJPEG()
        guard case .headerEnds(let usual)? = JPEGHead.extent(Array(bytes.prefix(PhotoFetcher.headBytes))) else {
            Issue.record("a camera JPEG's frame header lies in its first 128 KiB")
            return
        }
        #expect(usual < 70_000)
        let long = SampleCameraJPEG.withLargeSegments(bytes, count: 4)
        guard case .needsAtLeast(let needed)? = JPEGHead.extent(Array(long.prefix(PhotoFetcher.headBytes))),
              case .headerEnds(let end)? = JPEGHead.extent(long) else {
            Issue.record("the long file's head does not hold its frame header")
            return
        }
        #expect(needed > PhotoFetcher.headBytes && needed <= end && end > 240_000)
        var options = AnalysisOptions()
        options.usePreviews = true
        let fromHead = PhotoAnalyzer.analyzeFromHead(Array(long.prefix(end)), path: "/t/long.jpg", options: options)
        let whole = try PhotoAnalyzer.analyze(long, path: "/t/long.jpg", options: options)
        #expect(fromHead != nil && fromHead == whole, "a head as long as the markers say holds all the preview needs")
        let tooShort = PhotoAnalyzer.analyzeFromHead(Array(long.prefix(PhotoFetcher.headBytes)), path: "/t/long.jpg", options: options)
        #expect(tooShort == nil, "128 KiB do not reach the frame header")
        #expect(JPEGHead.extent([0x89, 0x50, 0x4E, 0x47]) == nil && JPEGHead.extent([0xFF, 0xD8, 0x00, 0x00, 0x00, 0x00]) == nil)
    }

    @Test("the digest covers size, head and tail: a byte copy has the same, a changed tail another, a changed middle the same (so it is never an identity)")
    func digest() throws {
        let bytes = try Self.cameraJPEG()
        var middle = bytes, tail = bytes
        middle[bytes.count / 2] ^= 0x55
        tail[bytes.count - 100] ^= 0x55
        let paths = try [bytes, bytes, middle, tail].map(Self.write)
        defer { for path in paths { try? FileManager.default.removeItem(atPath: path) } }
        let digests = try paths.map { try #require(try PhotoFetcher.fetchHead(path: $0, maxFileBytes: 1 << 30)).sha256 }
        #expect(digests[0] == digests[1] && digests[0] == digests[2] && digests[0] != digests[3])
        #expect(digests[0] != (try PhotoFetcher.fetch(path: paths[0], maxFileBytes: 1 << 30)).sha256)
        let small = try Self.write(Array(bytes.prefix(1000)))
        defer { try? FileManager.default.removeItem(atPath: small) }
        #expect(try PhotoFetcher.fetchHead(path: small, maxFileBytes: 1 << 30) == nil, "small files are read whole")
    }
}
