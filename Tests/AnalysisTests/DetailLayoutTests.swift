@testable import Analysis
import Testing

/// `DetailLayout`: which photos keep their 64×64 plane, and why they need it.
@Suite("Detail layouts")
struct DetailLayoutTests {
    /// A smooth photo: waves on a gradient (`TurnedWindowTests.waves`).
    static let smooth = TurnedWindowTests.waves()

    static func features(_ image: GrayImage) -> PhotoFeatures {
        PhotoAnalyzer.features(.png, image, chroma: nil, width: image.width, height: image.height, metadata: PhotoMetadata())
    }

    @Test("a brick wall keeps its 64×64 plane, a smooth photo does not")
    func keptForTexture() {
        let wall = Self.features(BrickWall.make())
        #expect(wall.detail.count == DetailLayout.byteCount)
        #expect(DetailLayout.misstatement(plane: wall.detail, thumbnail: wall.thumbnail) > DetailLayout.misstatedShare)
        let smooth = Self.features(Self.smooth)
        #expect(smooth.detail.isEmpty)
        let plane = DetailLayout.plane(AreaSampler(Self.smooth))
        #expect(DetailLayout.misstatement(plane: plane, thumbnail: smooth.thumbnail) < DetailLayout.misstatedShare / 2)
        let flat = GrayImage(width: 300, height: 200, pixels: [UInt8](repeating: 90, count: 300 * 200))
        #expect(Self.features(flat).detail.isEmpty, "a plain frame has no texture to keep")
    }

    /// Why the plane is kept: the wall's 80% centre and the crop a user makes of it differ past
    /// the judge's window limit (0.06) when both are resampled from 32×32 thumbnails, and agree
    /// well within it from the 64×64 planes.
    @Test("from the planes, a crop of the wall agrees with the wall's window; from the thumbnails it does not")
    func cropAgreesFromThePlane() {
        let wall = Self.features(BrickWall.make())
        let cropped = Self.features(BrickWall.make(crop: (51, 51, 410, 410)))
        #expect(cropped.detail.count == DetailLayout.byteCount, "the crop is as textured as the wall")
        let window = FeatureWindow(x: 51.0 / 512, y: 51.0 / 512, width: 410.0 / 512, height: 410.0 / 512)
        func difference(_ a: [UInt8], _ b: [UInt8], side: Int) -> Float {
            let cells = LayoutThumbnail.comparisonSide
            let inWall = AreaSampler(GrayImage(width: side, height: side, pixels: a)).cells(window, columns: cells, rows: cells)
            let whole = AreaSampler(GrayImage(width: side, height: side, pixels: b)).cells(.full, columns: cells, rows: cells)
            return LayoutThumbnail.evidenceDifference(LayoutThumbnail.ranks(inWall), LayoutThumbnail.ranks(whole))
        }
        let fromThumbnails = difference(wall.thumbnail, cropped.thumbnail, side: LayoutThumbnail.side)
        let fromPlanes = difference(wall.detail, cropped.detail, side: DetailLayout.side)
        #expect(fromThumbnails > 0.06, "\(fromThumbnails)")
        #expect(fromPlanes < 0.04, "\(fromPlanes)")
    }

    @Test("the plane is the frame's 64×64 area averages, and the straightened hashes come from it as before")
    func planeIsTheFramesAverages() {
        let sampler = AreaSampler(Self.smooth)
        let plane = DetailLayout.plane(sampler)
        let averages = sampler.cells(.full, columns: DetailLayout.side, rows: DetailLayout.side)
        #expect(plane.count == DetailLayout.byteCount)
        #expect(zip(plane, averages).allSatisfy { abs(Float($0) - $1) <= 0.5 })
        #expect(PerceptualHash.straightenedPHashes(plane: plane, aspect: 200.0 / 150) == PerceptualHash.straightenedPHashes(sampler))
        #expect(DetailLayout.isLayout(byteCount: 4096) && !DetailLayout.isLayout(byteCount: 1024) && !DetailLayout.isLayout(byteCount: 0))
    }
}
