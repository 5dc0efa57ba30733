import Analysis
import Foundation

/// A library folder of camera-like JPEGs in a scratch folder, for tests that need what cameras
/// write: EXIF with camera, capture time (with subseconds, when given), pixel size and a 160×120
/// thumbnail in IFD1.
struct CameraLibrary {
    let scratch: Scratch
    let path: String

    init() throws {
        scratch = try Scratch()
        path = scratch.path + "/library"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// Writes `name` showing `image`; its EXIF block (and so its thumbnail) was made for
    /// `exifOf` (default: the image itself; another image makes a stale preview).
    /// `software` and `modified` (DateTime) as an editor's export writes them; by default a
    /// camera's (its firmware, the capture time). `exposureTime` and `exposureBias` as a
    /// bracket's frames differ in them.
    func write(_ name: String, _ image: RGBImage, exifOf source: RGBImage? = nil,
               time: String = "2024:06:01 10:02:03", subSeconds: String? = nil,
               software: String = "cull-bench", modified: String? = nil, quality: Int = 90,
               exposureTime: (UInt32, UInt32) = (1, 125), exposureBias: (Int32, Int32)? = nil) throws {
        let source = source ?? image
        let thumbnail = try JPEGEncoder.encode(rgb: source.resized(width: 160, height: 120).pixels, width: 160, height: 120, quality: 85)
        var shot = CameraEXIF.Shot(width: source.width, height: source.height, captureTime: time)
        shot.subSeconds = subSeconds
        shot.software = software
        shot.modifyTime = modified
        shot.exposureTime = exposureTime
        shot.exposureBias = exposureBias
        let bytes = try JPEGEncoder.encode(rgb: image.pixels, width: image.width, height: image.height, quality: quality,
                                           exif: CameraEXIF.block(for: shot, thumbnail: thumbnail))
        try Data(bytes).write(to: URL(fileURLWithPath: "\(path)/\(name)"))
    }
}
