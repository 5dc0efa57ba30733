/// When an embedded preview (a JPEG's EXIF thumbnail, a HEIF thumbnail item) may stand in for
/// the main image: the postmortem's rule, that features never need the full image, taken one
/// step further. A preview is used only if it is big enough for the features and shows the
/// same frame: the same aspect ratio (an editor that cropped the photo and kept the old
/// thumbnail is caught here, as are letter-boxed 4:3 thumbnails of 3:2 photos) and, once the
/// main image's orientation is applied to it, the same orientation.
public enum PreviewPolicy {
    /// The smallest short side a preview may have: the 32×32 hash grid over an 80% window then
    /// still averages at least three pixels per cell on each axis. Cameras' 160×120 EXIF
    /// thumbnails qualify; 160×90 and smaller do not.
    public static let minimumShortSide = 120
    /// How far the preview's aspect ratio may be from the main image's (rounding of odd sizes).
    public static let aspectTolerance = 0.015

    /// Whether a preview of `previewWidth`×`previewHeight` (as stored) matches a main image of
    /// `width`×`height` (as stored: both before orientation).
    public static func accepts(previewWidth: Int, previewHeight: Int, width: Int, height: Int) -> Bool {
        guard previewWidth > 0, previewHeight > 0, width > 0, height > 0 else { return false }
        guard min(previewWidth, previewHeight) >= minimumShortSide else { return false }
        guard previewWidth < width || previewHeight < height else { return false }  // not a preview
        let previewAspect = Double(previewWidth) / Double(previewHeight)
        let aspect = Double(width) / Double(height)
        return abs(previewAspect / aspect - 1) <= aspectTolerance
    }
}
