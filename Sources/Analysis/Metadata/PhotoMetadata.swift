/// What a photo's EXIF says about it. Every field is optional: most files carry only some.
public struct PhotoMetadata: Sendable, Equatable {
    /// EXIF orientation, 1...8 (1: as stored).
    public var orientation: Int = 1
    /// DateTimeOriginal as written ("2024:06:01 18:22:03"), with SubSecTimeOriginal and
    /// OffsetTimeOriginal appended when present ("2024:06:01 18:22:03.45+02:00").
    public var captureTime: String?
    public var cameraMake: String?
    public var cameraModel: String?
    /// Software (IFD0): the camera's firmware, or the editor that saved the file.
    public var software: String?
    /// DateTime (IFD0, exiftool's ModifyDate) as written: when the file was last saved. A
    /// camera writes its capture time; an editor, the time it saved.
    public var modifyTime: String?
    /// Exposure settings (ExposureTime in seconds, FNumber, ISO, ExposureBiasValue in EV): a
    /// bracket's frames share a capture time and differ here.
    public var exposureTime: Double?
    public var fNumber: Double?
    public var iso: Int?
    public var exposureBias: Double?
    /// The embedded JPEG thumbnail (EXIF IFD1), if any.
    public var thumbnail: [UInt8]?

    public init() {}

    /// As exiftool's SubSecDateTimeOriginal: "2024:06:01 10:02:03.45+02:00". The fraction tells
    /// burst frames of one second apart; one that is not all digits is left out.
    static func captureTime(original: String?, subSeconds: String?, offset: String?) -> String? {
        guard let original, !original.isEmpty else { return nil }
        let fraction = (subSeconds ?? "").filter { $0 != " " }
        let digits = fraction.isEmpty || !fraction.allSatisfy({ ("0"..."9").contains($0) }) ? "" : "." + fraction
        return original + digits + (offset ?? "")
    }
}

extension String {
    /// Without leading and trailing spaces (EXIF strings are often padded with them).
    func trimmingSpaces() -> String {
        var slice = Substring(self)
        while slice.first == " " { slice.removeFirst() }
        while slice.last == " " { slice.removeLast() }
        return String(slice)
    }
}
