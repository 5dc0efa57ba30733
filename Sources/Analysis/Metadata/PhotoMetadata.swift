/// What a photo's EXIF says about it. Every field is optional: most files carry only some.
public struct PhotoMetadata: Sendable, Equatable {
    /// EXIF orientation, 1...8 (1: as stored).
    public var orientation: Int = 1
    /// DateTimeOriginal as written ("2024:06:01 18:22:03"), with OffsetTimeOriginal appended
    /// when present ("2024:06:01 18:22:03+02:00").
    public var captureTime: String?
    public var cameraMake: String?
    public var cameraModel: String?
    /// The embedded JPEG thumbnail's byte range inside the TIFF block, if any.
    public var thumbnail: Range<Int>?

    public init() {}
}
