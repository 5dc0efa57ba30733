@testable import Analysis
import Foundation
import Testing

/// `RegionalGain`: once registered, edits (tone, crop) light no region differently; a patch of another shot lit brighter does, even on texture fine enough
/// that `LocalChange` does not see it.
@Suite("Regional gain")
struct RegionalGainTests {
    /// Fine texture: values swing 60 levels within a cell or two, so a patch 40% brighter stays
    /// inside each cell's neighbourhood range.
    static func texture(_ x: Double, _ y: Double) -> Double {
        120 + 45 * sin(x * 70) * cos(y * 60) + 25 * sin((x + y) * 23) + 15 * cos(x * 9 - y * 5)
    }

    static func thumbnail(_ window: FeatureWindow = .full, tone: (Double, Double, Double) -> Double = { value, _, _ in value }) -> [UInt8] {
        LocalChangeTests.thumbnail(window, scene: texture, tone: tone)
    }

    static let original = thumbnail()
    /// The second shot: zoomed in 4% about the centre, a square over a tenth of the frame lit 40%.
    static let zoomedAndLit = thumbnail(FeatureWindow(x: 0.02, y: 0.02, width: 0.96, height: 0.96), tone: { value, x, y in
        (0.55...0.87).contains(x) && (0.2...0.52).contains(y) ? min(255, value * 1.4) : value
    })

    @Test("a patch lit 40% brighter on fine texture, in a frame zoomed 4%, is a region lit differently")
    func litPatch() {
        let gain = RegionalGain.largestRegion(Self.original, .full, Self.zoomedAndLit, .full)
        #expect(gain >= LocalChange.sceneChangeShare, "\(gain)")
        // Nor is it only the zoom: the same frame zoomed, unlit, shows none.
        let zoomed = Self.thumbnail(FeatureWindow(x: 0.02, y: 0.02, width: 0.96, height: 0.96))
        let unlit = RegionalGain.largestRegion(Self.original, .full, zoomed, .full)
        #expect(unlit < LocalChange.sceneChangeShare, "\(unlit)")
    }

    @Test("the same picture toned, or cropped off the nearest window, lights no region")
    func edits() {
        let toned = Self.thumbnail(tone: { value, _, _ in 255 * pow(max(0, value) / 255, 0.7) })
        #expect(RegionalGain.largestRegion(Self.original, .full, toned, .full) < LocalChange.sceneChangeShare)

        let crop = Self.thumbnail(FeatureWindow(x: 0.12, y: 0.07, width: 0.86, height: 0.88))
        let cropped = RegionalGain.largestRegion(Self.original, FeatureWindow(x: 0.1, y: 0.075, width: 0.9, height: 0.9), crop, .full)
        #expect(cropped < LocalChange.sceneChangeShare, "\(cropped)")

    }

    @Test("views that fit as paired are not registered; a patch lit in a zoomed frame is looked for registered")
    func fitsAsPaired() {
        let toned = Self.thumbnail(tone: { value, _, _ in 255 * pow(max(0, value) / 255, 0.7) })
        func paired(_ b: [UInt8]) -> Double {
            let viewB = LayoutThumbnail.sampler(b).cells(.full, columns: RegionalGain.gridSide, rows: RegionalGain.gridSide)
            return RegionalGain.pairedRegion(LayoutThumbnail.sampler(Self.original), .full, viewB, ToneTarget(viewB))
        }
        let settled = LocalChange.sceneChangeShare * RegionalGain.fitsAsPaired
        // The tone edit fits as paired: its answer is the region as paired, no registration.
        #expect(paired(toned) < settled)
        #expect(RegionalGain.largestRegion(Self.original, .full, toned, .full) == paired(toned))
        // The lit patch shows as paired too, at half the level: registered, and found (`litPatch`).
        #expect(paired(Self.zoomedAndLit) >= settled, "\(paired(Self.zoomedAndLit))")
    }

    /// The descent starts from the window as paired (scale 1, no shift) and must walk to a crop
    /// whose scale and centre both differ: scale and shift found together.
    @Test("registration finds a 10% crop from the whole frame, centred or off centre",
          arguments: [(x: 0.05, y: 0.05), (x: 0.02, y: 0.08), (x: 0.1, y: 0.0)])
    func registration(corner: (x: Double, y: Double)) {
        let crop = Self.thumbnail(FeatureWindow(x: corner.x, y: corner.y, width: 0.9, height: 0.9))
        let placement = RegionalGain.register(LayoutThumbnail.sampler(Self.original), .full, LayoutThumbnail.sampler(crop), .full)
        #expect(abs(placement.scale - 0.9) <= 0.01, "\(placement)")
        // The crop's centre lies (corner + 0.45) into the frame: that much past the middle.
        #expect(abs(placement.dx - (corner.x - 0.05)) <= 0.01 && abs(placement.dy - (corner.y - 0.05)) <= 0.01, "\(placement)")
    }
}
