import Analysis

/// Where registration (`PairJudge+Registration`) starts: whether two whole frames are a photo
/// and a crop of one of its sides (rules 35), and the seeds of the descent from a crop window,
/// the whole frame or a straightened frame.
extension PairJudge {
    /// Shapes (width over height) that differ by more than this share (a resized copy rounds
    /// its sides by a pixel: 1024 × 683 against 6000 × 4000 is 0.05% off) and by less than
    /// `frameCropLargest`: one side was cut.
    static let frameCropSmallest = 0.01
    /// A cut of one side by more than this (a shape 15% off) lies near a band window
    /// (`FeatureWindow.bands`, 80% of one side), from which registration starts as from any
    /// window.
    static let frameCropLargest = 0.15

    /// The two photos, the one with more pixels first, when their whole frames may be a photo
    /// and a crop of one of its sides (rules 35): shapes `frameCropSmallest` to
    /// `frameCropLargest` apart, fewer pixels in the narrower shape, and no more along the side
    /// it did not cut. The holdout's 3% crop of the left of a brick wall pairs through its whole
    /// frame, 2–10 bits from the original's, and differs from it there by 0.136 (its nearest
    /// windows, too far off to be paired, by 0.2 and more); registered in the original from the
    /// whole frame it differs by 0.034 (the window limit is 0.06). Two shots of one camera share
    /// their shape, so a burst is never registered from its frames.
    static func frameCrop(_ a: GroupingPhoto, _ b: GroupingPhoto) -> (GroupingPhoto, GroupingPhoto)? {
        let shapeA = Double(a.width) / Double(a.height), shapeB = Double(b.width) / Double(b.height)
        let change = abs(shapeA - shapeB) / max(shapeA, shapeB)
        guard change > frameCropSmallest, change < frameCropLargest, a.width * a.height != b.width * b.height else { return nil }
        let (larger, smaller) = a.width * a.height > b.width * b.height ? (a, b) : (b, a)
        let cutWidth = Double(smaller.width) / Double(smaller.height) < Double(larger.width) / Double(larger.height)
        return (cutWidth ? smaller.height <= larger.height : smaller.width <= larger.width) ? (larger, smaller) : nil
    }

    /// Seeds from a crop window: the largest box of the copy's shape inside the window, against
    /// the edges of the frame the window keeps (a crop keeps the sides it does not cut: 15% off
    /// the left and 10% off the bottom leaves the top and right where they were), and that box
    /// centred and turned by 2° and 4° either way (a straightened photo is cropped about its
    /// centre), and the box of the copy's width (`keptWidth`, a share of the original's) against
    /// the same edges as the first. One seed each way, not one in every corner: at a million
    /// rows, corner seeds made registration cost 5.2 s of judging instead of about 2.
    static func cropSeeds(_ start: FeatureWindow, imageAspect: Double, shape: Double, keptWidth: Double) -> [TurnedWindow] {
        let width = min(start.width, start.height * shape / imageAspect)
        func anchor(_ origin: Double, _ size: Double) -> Double {
            // 0: against the frame's first edge, 1: its last, 0.5: centred.
            let first = origin <= 0.001, last = origin + size >= 0.999
            return first == last ? 0.5 : (first ? 0 : 1)
        }
        func box(_ fx: Double, _ fy: Double, degrees: Double = 0, width: Double = width) -> TurnedWindow {
            // fx, fy: where the box sits against the start window, 0 (left, top) to 1 (right,
            // bottom): inside it, or past it on the side away from the edges it keeps.
            let height = width * imageAspect / shape
            let box = TurnedWindow(centreX: start.x + width / 2 + fx * (start.width - width),
                                   centreY: start.y + height / 2 + fy * (start.height - height), width: width,
                                   angle: degrees * Double.pi / 180, imageAspect: imageAspect, shape: shape)
            return shrunkInside(box)
        }
        let (fx, fy) = (anchor(start.x, start.width), anchor(start.y, start.height))
        var seeds = [box(fx, fy)] + [-2.0, 2, -4, 4].map { box(0.5, 0.5, degrees: $0) }
        // From the whole frame (`frameCrop`): the box against either end of the side that was
        // cut too, where a crop of one side lies.
        if start == .full {
            seeds += width < 1 ? [box(0, 0.5), box(1, 0.5)] : [box(0.5, 0), box(0.5, 1)]
        }
        // A crop that kept its pixels: the box of the copy's own width in the original's pixels,
        // against the same edges. An 85% × 90% crop paired through an 80% window starts 5–10%
        // short of it, more than the descent's first moves close before its gates give up
        // (docs/FEATURES.md, "Registered crops").
        if keptWidth >= registrationSmallest, keptWidth < 1, abs(keptWidth - width) > registrationSteps[0].move {
            seeds.append(box(fx, fy, width: keptWidth))
        }
        return seeds
    }

    /// Seeds from a straightened frame (`FeatureWindow.straightened`): that window in the copy's
    /// shape, and turned a further `registrationSteps[0].turn` either way (the windows are 3°
    /// apart, so a copy straightened by any angle up to 7.5° lies within 1.5° of a seed).
    static func straightenedSeeds(_ index: Int, imageAspect: Double, shape: Double) -> [TurnedWindow] {
        var window = FeatureWindow.straightened(index, imageAspect: imageAspect)
        window.shape = shape
        let turn = registrationSteps[0].turn
        return [0, -turn, turn].map { change in
            var seed = window
            seed.angle += change
            return shrunkInside(seed)
        }
    }

    /// The box made smaller, a hundredth of the frame at a time, until it lies inside the frame
    /// (a turned box must be smaller to), or down to `registrationSmallest`.
    private static func shrunkInside(_ window: TurnedWindow) -> TurnedWindow {
        var box = window
        while !box.isInside(), box.width > registrationSmallest { box.width -= 0.01 }
        return box
    }

    /// Whether the photo `pairing` pairs by its whole frame, the copy registration looks for in
    /// the other, has fewer pixels than that other: a crop or a straightened crop saved at its
    /// own size does (for whole frames `frameCrop` asks it). `Grouper.reachCheck` registers a
    /// close pair from a start search left out only then: two shots or look-alikes of one
    /// camera share their pixel size.
    static func copyIsSmaller(_ pairing: Grouper.Pairing, _ a: GroupingPhoto, _ b: GroupingPhoto) -> Bool {
        let pixelsA = a.width * a.height, pixelsB = b.width * b.height
        switch (pairing.slotA, pairing.slotB) {
        case (0, 0): return !onePixelCount(a, b)
        case (_, 0): return pixelsB < pixelsA
        case (0, _): return pixelsA < pixelsB
        default: return false
        }
    }

    /// Whether the two photos have as many pixels as each other (neither can be a crop of the
    /// other saved at its own size: `copyIsSmaller`).
    static func onePixelCount(_ a: GroupingPhoto, _ b: GroupingPhoto) -> Bool {
        a.width * a.height == b.width * b.height
    }
}
