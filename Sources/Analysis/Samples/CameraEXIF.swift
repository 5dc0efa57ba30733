import Foundation

/// The EXIF block a camera writes, built with `TIFFWriter`: IFD0 (camera, orientation, file
/// time), the Exif sub-IFD (capture time with its UTC offset, exposure, pixel size) and IFD1
/// holding a small JPEG thumbnail, so readers parse as much as they would in a real file.
public enum CameraEXIF {
    public struct Shot: Sendable {
        public var width: Int
        public var height: Int
        /// "YYYY:MM:DD HH:MM:SS", as EXIF writes dates.
        public var captureTime: String
        public var utcOffset = "+02:00"
        /// SubSecTimeOriginal ("45": .45 s), as cameras write it for burst frames; nil: none.
        public var subSeconds: String? = nil
        public var make = "Cull Bench Optics"
        public var model = "CB-12 (synthetic 12 MP)"
        /// Software (IFD0): a camera's firmware, or the editor that saved an export.
        public var software = "cull-bench"
        /// DateTime (IFD0, ModifyDate); nil: the capture time, as a camera writes it.
        public var modifyTime: String? = nil
        /// ExposureTime (seconds, as a fraction) and ExposureBiasValue (EV, as a fraction; nil:
        /// not written), which a bracket's frames change.
        public var exposureTime: (numerator: UInt32, denominator: UInt32) = (1, 125)
        public var exposureBias: (numerator: Int32, denominator: Int32)? = nil

        public init(width: Int, height: Int, captureTime: String) {
            self.width = width
            self.height = height
            self.captureTime = captureTime
        }
    }

    public static func block(for shot: Shot, thumbnail: [UInt8]) -> [UInt8] {
        let ifd0 = self.ifd0(shot, exifIFDOffset: 0)
        let exif = exifIFD(shot)
        let ifd1 = self.ifd1(thumbnailOffset: 0, length: thumbnail.count)
        let exifOffset = TIFFWriter.headerSize + TIFFWriter.size(of: ifd0)
        let ifd1Offset = exifOffset + TIFFWriter.size(of: exif)
        let thumbnailOffset = ifd1Offset + TIFFWriter.size(of: ifd1)
        return TIFFWriter.block(
            ifds: [self.ifd0(shot, exifIFDOffset: exifOffset), exif,
                   self.ifd1(thumbnailOffset: thumbnailOffset, length: thumbnail.count)],
            // The sub-IFD is reached through tag 0x8769, not the chain; IFD0's next is IFD1.
            nextIFD: [UInt32(ifd1Offset), 0, 0],
            trailer: thumbnail
        )
    }

    /// A capture time for photo `index` of a set: one shot every 37 seconds through June 2024.
    public static func captureTime(index: Int) -> String {
        let seconds = index * 37
        let day = 1 + (seconds / 86_400) % 30
        let time = 8 * 3600 + seconds % 43_200  // daylight hours
        return String(format: "2024:06:%02d %02d:%02d:%02d", day, time / 3600, time / 60 % 60, time % 60)
    }

    private static func ifd0(_ shot: Shot, exifIFDOffset: Int) -> [TIFFWriter.Entry] {
        [
            .ascii(0x010F, shot.make),
            .ascii(0x0110, shot.model),
            .short(0x0112, 1),                // Orientation: as stored
            .rational(0x011A, 72, 1),         // XResolution
            .rational(0x011B, 72, 1),         // YResolution
            .short(0x0128, 2),                // ResolutionUnit: inches
            .ascii(0x0131, shot.software),    // Software
            .ascii(0x0132, shot.modifyTime ?? shot.captureTime), // DateTime
            .short(0x0213, 2),                // YCbCrPositioning: co-sited
            .long(0x8769, UInt32(exifIFDOffset)),
        ]
    }

    private static func exifIFD(_ shot: Shot) -> [TIFFWriter.Entry] {
        var entries: [TIFFWriter.Entry] = [
            .rational(0x829A, shot.exposureTime.numerator, shot.exposureTime.denominator), // ExposureTime
            .rational(0x829D, 56, 10),        // FNumber
            .short(0x8822, 2),                // ExposureProgram: normal
            .short(0x8827, 200),              // ISO
            .undefined(0x9000, Array("0232".utf8)),
            .ascii(0x9003, shot.captureTime), // DateTimeOriginal
            .ascii(0x9004, shot.captureTime), // DateTimeDigitized
            .ascii(0x9010, shot.utcOffset),   // OffsetTime
            .ascii(0x9011, shot.utcOffset),   // OffsetTimeOriginal
        ]
        if let bias = shot.exposureBias { entries.append(.srational(0x9204, bias.numerator, bias.denominator)) } // ExposureBiasValue
        entries += [
            .undefined(0x9101, [1, 2, 3, 0]), // ComponentsConfiguration: YCbCr
            .rational(0x920A, 50, 1),         // FocalLength
        ]
        if let subSeconds = shot.subSeconds { entries.append(.ascii(0x9291, subSeconds)) } // SubSecTimeOriginal
        entries += [
            .undefined(0xA000, Array("0100".utf8)),
            .short(0xA001, 1),                // ColorSpace: sRGB
            .long(0xA002, UInt32(shot.width)),
            .long(0xA003, UInt32(shot.height)),
        ]
        return entries
    }

    private static func ifd1(thumbnailOffset: Int, length: Int) -> [TIFFWriter.Entry] {
        [
            .short(0x0103, 6),                // Compression: JPEG (old-style thumbnail)
            .rational(0x011A, 72, 1),
            .rational(0x011B, 72, 1),
            .short(0x0128, 2),
            .long(0x0201, UInt32(thumbnailOffset)), // JPEGInterchangeFormat
            .long(0x0202, UInt32(length)),          // JPEGInterchangeFormatLength
        ]
    }
}
