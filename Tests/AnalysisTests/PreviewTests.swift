@testable import Analysis
import Testing

/// `--previews auto`: an embedded EXIF thumbnail stands in for the main image only when it
/// shows the same frame and is big enough.
@Suite("Embedded previews", .timeLimit(.minutes(5)))
struct PreviewTests {
    /// A little-endian TIFF block: IFD0 with the orientation, IFD1 pointing at `thumbnail`.
    func exif(orientation: UInt16, thumbnail: [UInt8]) -> [UInt8] {
        var out: [UInt8] = Array("II".utf8) + [42, 0] + le32(8)
        func entry(_ tag: UInt16, _ type: UInt16, _ value: UInt32) -> [UInt8] { le16(tag) + le16(type) + le32(1) + le32(value) }
        let ifd1 = 8 + 2 + 12 + 4
        out += le16(1) + entry(0x0112, 3, UInt32(orientation)) + le32(UInt32(ifd1))
        let data = ifd1 + 2 + 2 * 12 + 4
        out += le16(2) + entry(0x0201, 4, UInt32(data)) + entry(0x0202, 4, UInt32(thumbnail.count)) + le32(0)
        return out + thumbnail
    }
    func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
    func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }

    func jpeg(_ image: RGBImage, exif: [UInt8]? = nil) throws -> [UInt8] {
        try JPEGEncoder.encode(rgb: image.pixels, width: image.width, height: image.height, quality: 90, exif: exif)
    }

    static let photo = SyntheticPhoto.make(seed: 41, width: 1600, height: 1200)

    func analyse(_ bytes: [UInt8], previews: Bool) throws -> PhotoFeatures {
        var options = AnalysisOptions()
        options.usePreviews = previews
        return try PhotoAnalyzer.analyze(bytes, path: "/t/p.jpg", options: options)
    }

    @Test("a matching 160×120 thumbnail is used with previews on, never with them off; features agree with the main image's")
    func matchingThumbnail() throws {
        let file = try jpeg(Self.photo, exif: exif(orientation: 1, thumbnail: try jpeg(Self.photo.resized(width: 160, height: 120))))
        let viaPreview = try analyse(file, previews: true), viaMain = try analyse(file, previews: false)
        #expect(viaPreview.decodedWidth == 160 && viaPreview.decodedHeight == 120)
        #expect(viaMain.decodedWidth == 400 && viaMain.decodedHeight == 300)  // 1/4 DCT scale
        #expect(viaPreview.width == 1600 && viaPreview.height == 1200, "sizes are the main image's")
        #expect(viaPreview.fromPreview && !viaMain.fromPreview, "the source is reported, for verification before grouping")
        #expect(PerceptualHash.distance(viaPreview.pHash, viaMain.pHash) <= 4)
        let difference = LayoutThumbnail.difference(LayoutThumbnail.cells(of: viaPreview.thumbnail, in: .full),
                                                    LayoutThumbnail.cells(of: viaMain.thumbnail, in: .full))
        #expect(difference < 0.03, "\(difference)")
    }

    @Test("the main image's orientation is applied to the thumbnail")
    func orientedThumbnail() throws {
        let stored = Self.photo.rotatedCounterClockwise()  // 1200×1600 as stored, orientation 6 shows it upright
        let file = try jpeg(stored, exif: exif(orientation: 6, thumbnail: try jpeg(stored.resized(width: 120, height: 160))))
        let viaPreview = try analyse(file, previews: true)
        let upright = try analyse(try jpeg(Self.photo), previews: false)
        #expect(viaPreview.decodedWidth == 160 && viaPreview.width == 1600)
        #expect(PerceptualHash.distance(viaPreview.pHash, upright.pHash) <= 4)
    }

    @Test("refused: another frame (a stale thumbnail of a crop), a letter-boxed one, one too small, a damaged one", arguments: [
        ("aspect", 160, 90), ("small", 100, 75),
    ])
    func refusedBySize(_ name: String, width: Int, height: Int) throws {
        let file = try jpeg(Self.photo, exif: exif(orientation: 1, thumbnail: try jpeg(Self.photo.resized(width: width, height: height))))
        #expect(try analyse(file, previews: true).decodedWidth == 400, "\(name)")
    }

    @Test("a damaged thumbnail falls back to the main image, never fails the photo")
    func damagedThumbnail() throws {
        var thumbnail = try jpeg(Self.photo.resized(width: 160, height: 120))
        thumbnail.removeLast(thumbnail.count / 2)
        let file = try jpeg(Self.photo, exif: exif(orientation: 1, thumbnail: thumbnail))
        #expect(try analyse(file, previews: true).decodedWidth == 400)
    }

    @Test("policy: aspect within 1.5%, short side at least 120, smaller than the main image")
    func policy() {
        #expect(PreviewPolicy.accepts(previewWidth: 160, previewHeight: 120, width: 4000, height: 3000))
        #expect(PreviewPolicy.accepts(previewWidth: 180, previewHeight: 120, width: 6000, height: 4000))
        #expect(!PreviewPolicy.accepts(previewWidth: 160, previewHeight: 120, width: 6000, height: 4000))  // letter-boxed
        #expect(!PreviewPolicy.accepts(previewWidth: 160, previewHeight: 107, width: 6000, height: 4000))  // too small
        #expect(!PreviewPolicy.accepts(previewWidth: 4000, previewHeight: 3000, width: 4000, height: 3000))
    }
}
