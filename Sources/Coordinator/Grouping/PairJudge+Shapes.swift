import Analysis

extension PairJudge {
    /// The most the wider of two views is narrowed to the other's shape (`inOneShape`): a
    /// fifth. Past that the registration, whose scales reach 12% either way
    /// (`RegionalGain.scaleRange`), could not line the two up anyway.
    static let largestShapeChange = 0.8

    /// The views with the wider of the two windows (width over height in the photos' pixels)
    /// narrowed about its centre to the other's shape, for `RegionalGain`.
    ///
    /// Its registration scales and shifts the first window, which keeps the window's shape. A
    /// copy cropped on one side has another shape than its original (3% off the left of a
    /// 400×328 picture leaves 388×328), and no scale and shift of the one frame then lines up
    /// with the other: on a picture of sharp edges (a black horse on white) the misfit along
    /// every edge is a band of blocks brighter or darker the same way, which reads as a region
    /// lit differently: the holdout's horse cropped 3% off the left was another shot of its
    /// original on every pairing (`bench/judge-pairs.sh`). With the wider view narrowed, a
    /// scale and a shift can line the two up exactly (the part of the original the copy shows
    /// has the copy's shape). Shots of one moment have one shape: this leaves them as they are.
    static func inOneShape(_ views: OrientedViews) -> OrientedViews {
        guard views.aspectA > 0, views.aspectB > 0, views.windowA.height > 0, views.windowB.height > 0 else { return views }
        let shapeA = views.windowA.width / views.windowA.height * views.aspectA
        let shapeB = views.windowB.width / views.windowB.height * views.aspectB
        var matched = views
        if shapeA > shapeB {
            matched.windowA = narrowed(views.windowA, by: shapeB / shapeA)
        } else if shapeB > shapeA {
            matched.windowB = narrowed(views.windowB, by: shapeA / shapeB)
        }
        return matched
    }

    /// `window` narrowed about its centre to `factor` of its width; as it is when the change is
    /// under a thousandth, or past `largestShapeChange`.
    private static func narrowed(_ window: FeatureWindow, by factor: Double) -> FeatureWindow {
        guard factor < 0.999, factor >= largestShapeChange else { return window }
        let width = window.width * factor
        return FeatureWindow(x: window.x + (window.width - width) / 2, y: window.y, width: width, height: window.height)
    }
}
