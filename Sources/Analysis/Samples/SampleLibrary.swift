import Foundation

/// Writes a small photo library with known duplicates: for `cull run`'s demo, the tests and
/// the benchmarks. Each scene is an original plus edited copies a real library collects.
public enum SampleLibrary {
    public enum Edit: String, CaseIterable, Sendable {
        case original, exactCopy = "copy", resized = "resize50", recompressed = "jpeg_q40"
        case cropped = "crop5", brightened = "bright15", exifRotated = "exif_rot90"
        case png, webp

        var fileExtension: String {
            switch self {
            case .png: "png"
            case .webp: "webp"
            default: "jpg"
            }
        }
    }

    public struct Entry: Sendable {
        public let path: String   // absolute
        public let scene: Int
        public let edit: Edit?    // nil: not a photo (a text file, say)
    }

    /// Writes `scenes` scenes under `root/sceneNN/`, plus a few non-photo files, and returns
    /// what it wrote. `edits` picks the copies per scene.
    @discardableResult
    public static func write(
        to root: String, scenes: Int, width: Int = 960, height: Int = 720,
        edits: [Edit] = Edit.allCases, seed: UInt64 = 1, extras: Bool = true
    ) throws -> [Entry] {
        let fm = FileManager.default
        try fm.createDirectory(atPath: root, withIntermediateDirectories: true)
        var entries: [Entry] = []
        for scene in 0..<scenes {
            let dir = "\(root)/scene\(String(format: "%02d", scene))"
            try fm.createDirectory(atPath: dir, withIntermediateDirectories: true)
            let image = SyntheticPhoto.make(seed: seed &* 1000 &+ UInt64(scene), width: width, height: height)
            // The original is what a camera writes: its EXIF names the camera and the capture
            // time and holds a thumbnail. The edits are exports without it, as most tools write.
            let thumbnailSize = (width: 160, height: max(1, 160 * height / max(1, width)))
            let thumbnail = try JPEGEncoder.encode(rgb: image.resized(width: thumbnailSize.width, height: thumbnailSize.height).pixels,
                                                   width: thumbnailSize.width, height: thumbnailSize.height, quality: 85)
            let shot = CameraEXIF.Shot(width: width, height: height, captureTime: CameraEXIF.captureTime(index: Int(seed % 1000) * 100 + scene))
            let original = try JPEGEncoder.encode(rgb: image.pixels, width: width, height: height, quality: 92,
                                                  exif: CameraEXIF.block(for: shot, thumbnail: thumbnail))
            for edit in edits {
                let path = "\(dir)/\(edit.rawValue).\(edit.fileExtension)"
                let bytes: [UInt8]
                switch edit {
                case .original, .exactCopy:
                    bytes = original
                case .resized:
                    let small = image.resized(width: width / 2, height: height / 2)
                    bytes = try JPEGEncoder.encode(rgb: small.pixels, width: small.width, height: small.height, quality: 90)
                case .recompressed:
                    bytes = try JPEGEncoder.encode(rgb: image.pixels, width: width, height: height, quality: 40)
                case .cropped:
                    let dx = width / 20, dy = height / 20
                    let crop = image.cropped(x: dx, y: dy, width: width - 2 * dx, height: height - 2 * dy)
                    bytes = try JPEGEncoder.encode(rgb: crop.pixels, width: crop.width, height: crop.height, quality: 90)
                case .brightened:
                    let bright = image.brightened(by: 1.15)
                    bytes = try JPEGEncoder.encode(rgb: bright.pixels, width: width, height: height, quality: 90)
                case .exifRotated:
                    let rotated = image.rotatedCounterClockwise()
                    bytes = try JPEGEncoder.encode(rgb: rotated.pixels, width: rotated.width, height: rotated.height,
                                                   quality: 90, exif: EXIFBuilder.orientationBlock(6))
                case .png:
                    guard let png = PNGDecoder.encode(rgb: image.pixels, width: width, height: height) else {
                        throw JPEGEncoder.EncodeError(description: "PNG encoding failed")
                    }
                    bytes = png
                case .webp:
                    guard let webp = WebPDecoder.encode(rgb: image.pixels, width: width, height: height, quality: 80) else {
                        throw JPEGEncoder.EncodeError(description: "WebP encoding failed")
                    }
                    bytes = webp
                }
                try Data(bytes).write(to: URL(fileURLWithPath: path))
                // Copies and edits are made after the original: an hour apart, in this order.
                let made = Date(timeIntervalSince1970: 1_717_200_000 + Double(scene) * 86_400 + Double(edits.firstIndex(of: edit) ?? 0) * 3600)
                try fm.setAttributes([.modificationDate: made], ofItemAtPath: path)
                entries.append(Entry(path: path, scene: scene, edit: edit))
            }
        }
        if extras {
            let notes = "\(root)/notes.txt"
            try Data("Not a photo: cull reports it as unsupported.\n".utf8).write(to: URL(fileURLWithPath: notes))
            entries.append(Entry(path: notes, scene: -1, edit: nil))
        }
        return entries
    }
}

/// Builds minimal TIFF-structured EXIF blocks.
public enum EXIFBuilder {
    /// Big-endian TIFF with one IFD holding only the Orientation tag.
    public static func orientationBlock(_ orientation: UInt16) -> [UInt8] {
        var block: [UInt8] = [0x4D, 0x4D, 0x00, 0x2A, 0x00, 0x00, 0x00, 0x08]  // "MM", 42, IFD0 at 8
        block += [0x00, 0x01]                                                  // one entry
        block += [0x01, 0x12, 0x00, 0x03, 0x00, 0x00, 0x00, 0x01]              // Orientation, SHORT, 1
        block += [UInt8(orientation >> 8), UInt8(orientation & 0xFF), 0x00, 0x00]
        block += [0x00, 0x00, 0x00, 0x00]                                      // no next IFD
        return block
    }
}
