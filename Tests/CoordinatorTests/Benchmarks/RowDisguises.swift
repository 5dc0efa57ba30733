import Analysis
import Foundation

/// How rows of one real source are made to look like different photos.
enum Disguise: Sendable, Equatable {
    /// Every row through a tone map of its own, a photo and its copies through the same one (the
    /// benchmark before the twenty-fifth session; CULL_BENCH_DISGUISE=tone). A tone edit or a
    /// re-encode seen through a curve that goes up and down is no monotone change of the photo,
    /// so the judge cannot confirm most tone-edited copies here although it does on real files.
    case toneMaps
    /// By family (`LayoutDisguise`): each family's copies relate to its photo as the real edits
    /// made them. A family's copies take edits of one kind, the first copy's.
    case byFamily
}

/// A row's layout disguise under `Disguise.byFamily`.
enum LayoutDisguise: Sendable, Equatable {
    /// Through the row's tone map (`ToneMap`): distinct photos.
    case toned
    /// As the real source shows it: families whose edits move or cover content, which a tone map
    /// would not commute with through their re-encoding and resampling.
    case shown
    /// Blocks shuffled (`BlockShuffle`, seeded by the family's tone seed): families whose edits
    /// keep every pixel where it was.
    case shuffled(seed: UInt32)
}

/// A random, non-monotone, piecewise-linear map of gray levels (4 to 7 segments up and down):
/// applied alike to a photo and its copies, it makes a different-looking photo without moving
/// anything in the frame.
struct ToneMap {
    let map: [UInt8]

    init(_ random: inout SplitMix64) {
        let segments = 4 + Int(random.next() % 4)
        let knots = (0...segments).map { _ in Double(random.next() % 256) }
        map = (0..<256).map { level in
            let x = Double(level) / 255 * Double(segments)
            let i = min(Int(x), segments - 1), f = x - Double(i)
            return UInt8((knots[i] * (1 - f) + knots[i + 1] * f).rounded())
        }
    }
}

extension RealisticLibrary {
    /// A chroma layout with every cell's hue turned by `degrees` (clamped to the byte's range):
    /// the same turn for a photo, its copies and its burst shots keeps every colour relation an
    /// edit makes between them (a colour edit's map z ↦ w·z + t, turned alike, is one such map),
    /// while rows of one source in different families show other colours.
    static func turned(_ planes: [UInt8], by degrees: Double) -> [UInt8] {
        let cells = planes.count / 2
        guard cells > 0 else { return planes }
        let (sine, cosine) = (sin(degrees * .pi / 180), cos(degrees * .pi / 180))
        var out = planes
        for index in 0..<cells {
            let cb = Double(planes[index]) - 128, cr = Double(planes[cells + index]) - 128
            out[index] = UInt8(max(0, min(255, (128 + cb * cosine - cr * sine).rounded())))
            out[cells + index] = UInt8(max(0, min(255, (128 + cb * sine + cr * cosine).rounded())))
        }
        return out
    }
}
