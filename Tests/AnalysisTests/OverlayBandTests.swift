import Analysis
import Foundation
import Testing

/// `OverlayBand`: a band laid across a copy's whole width, told from tone edits and from a
/// change of the scene in a band of rows.
@Suite("Overlay bands")
struct OverlayBandTests {
    static let side = 32

    /// A textured plane: crossed waves over a gradient, so that levels vary within every row.
    static func plane(phase: Double = 0) -> [UInt8] {
        (0..<(side * side)).map { index in
            let x = Double(index % side), y = Double(index / side)
            let level = 70 + 3 * x + 1.5 * y + 30 * sin(0.9 * x + 0.4 * y + phase) + 20 * sin(0.35 * x - 1.1 * y + 2 * phase)
            return UInt8(max(0, min(255, level.rounded())))
        }
    }

    /// `plane` with a translucent layer of `colour` at `opacity` over the rows from `top` to
    /// `bottom` (fractions of the height; a row partly covered is blended by its share), and
    /// "text": a few cells of the band's middle row set near white.
    static func banded(_ plane: [UInt8], top: Double = 0.42, bottom: Double = 0.58, opacity: Double = 0.47,
                       colour: Double = 0, text: Bool = true) -> [UInt8] {
        var out = plane
        for row in 0..<side {
            let covered = max(0, min(Double(row + 1), bottom * Double(side)) - max(Double(row), top * Double(side)))
            guard covered > 0 else { continue }
            for index in (row * side)..<((row + 1) * side) {
                let layered = (1 - opacity) * Double(plane[index]) + opacity * colour
                out[index] = UInt8((covered * layered + (1 - covered) * Double(plane[index])).rounded())
            }
        }
        if text {
            let row = Int((top + bottom) / 2 * Double(side))
            for x in stride(from: 4, to: 14, by: 3) { out[row * side + x] = 210 }
        }
        return out
    }

    @Test("a translucent banner across the middle is found, and cleared to the photo's levels")
    func banner() throws {
        let photo = Self.plane(), copy = Self.banded(photo)
        let band = try #require(OverlayBand.find(photo: photo, copy: copy, side: Self.side))
        // Rows 13.4 to 18.6 of 32: the partly covered rows 13 and 18 are in the band.
        #expect(band.rows.lowerBound >= 12 && band.rows.lowerBound <= 13 && band.rows.upperBound >= 19 && band.rows.upperBound <= 20,
                "\(band.rows)")
        #expect(abs(band.gain - 1) < 0.02 && abs(band.offset) < 2, "\(band)")
        let cleared = OverlayBand.cleared(copy, photo: photo, planeSide: Self.side, band: band)
        #expect(zip(cleared, photo).allSatisfy { abs(Int($0) - Int($1)) <= 1 })
        // On other planes: every row the band touches.
        #expect(band.rows(onSide: 64) == (2 * band.rows.lowerBound)..<(2 * band.rows.upperBound))
        #expect(band.rows(onSide: 16) == (band.rows.lowerBound / 2)..<((band.rows.upperBound + 1) / 2))

        // A white caption bar at the bottom, and a banner over a copy toned darker.
        #expect(OverlayBand.find(photo: photo, copy: Self.banded(photo, top: 0.8, bottom: 1, opacity: 0.6, colour: 255), side: Self.side) != nil)
        let toned = photo.map { UInt8((0.9 * Double($0) + 8).rounded()) }
        let tonedBand = try #require(OverlayBand.find(photo: photo, copy: Self.banded(toned), side: Self.side))
        #expect(abs(tonedBand.gain - 0.9) < 0.02, "\(tonedBand)")
    }

    @Test("tone edits, a band lit brighter, another scene in a band, a band too tall, or the photo against its copy: no band")
    func noBand() {
        let photo = Self.plane()
        #expect(OverlayBand.find(photo: photo, copy: photo.map { UInt8(min(255, (1.2 * Double($0)).rounded())) }, side: Self.side) == nil)
        // Lit 40% brighter in the band: a gain above the outside's is no overlay.
        var brighter = photo
        for index in (14 * Self.side)..<(19 * Self.side) { brighter[index] = UInt8(min(255, (1.4 * Double(photo[index])).rounded())) }
        #expect(OverlayBand.find(photo: photo, copy: brighter, side: Self.side) == nil)
        // Another scene in the band's rows (a train passing): its levels follow no line of the photo's.
        var passing = photo
        let other = Self.plane(phase: 2.1)
        for index in (14 * Self.side)..<(19 * Self.side) { passing[index] = other[index] }
        #expect(OverlayBand.find(photo: photo, copy: passing, side: Self.side) == nil)
        // A third of the height and more.
        #expect(OverlayBand.find(photo: photo, copy: Self.banded(photo, top: 0.3, bottom: 0.7), side: Self.side) == nil)
        // The copy's band against the photo: the photo's levels would have to gain contrast in it.
        #expect(OverlayBand.find(photo: Self.banded(photo), copy: photo, side: Self.side) == nil)
    }
}
