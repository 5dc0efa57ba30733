import Foundation

/// Writes DNG raw files for tests: a TIFF container whose first directory is the camera's
/// preview (a JPEG, as cameras write it) and whose sub-directory holds 16-bit Bayer (RGGB)
/// sensor data made from an RGB picture, with the colour matrix and white balance of a camera
/// whose sensor sees linear sRGB. LibRaw develops it back to the picture.
public enum SampleDNG {
    public struct Options: Sendable {
        /// The embedded preview's size; nil: none.
        public var preview: (width: Int, height: Int)?
        public var orientation = 1
        public var make = "Cull"
        public var model = "Test Camera"
        /// "2024:06:01 11:00:00"
        public var captureTime: String?
        /// The preview's bytes after the sensor data instead of before it (where the
        /// directories put it is up to the writer; a head-only read then cannot reach it).
        public var previewAfterSensor = false
        /// The preview's JPEG quality.
        public var previewQuality = 90

        public init(preview: (width: Int, height: Int)? = (320, 240), orientation: Int = 1, captureTime: String? = nil) {
            self.preview = preview
            self.orientation = orientation
            self.captureTime = captureTime
        }
    }

    public static func encode(_ image: RGBImage, options: Options = Options()) throws -> [UInt8] {
        let width = image.width & ~1, height = image.height & ~1
        // The sensor: one colour per pixel in RGGB order, linear (the picture's gamma undone),
        // black level 64, white level 4095.
        var sensor: [UInt8] = []
        sensor.reserveCapacity(width * height * 2)
        for y in 0..<height {
            for x in 0..<width {
                let channel = y % 2 == 0 ? (x % 2 == 0 ? 0 : 1) : (x % 2 == 0 ? 1 : 2)
                let value = Double(image.pixels[3 * (y * image.width + x) + channel]) / 255
                sensor += littleEndian(UInt16(64 + (pow22(value) * 4000).rounded()))
            }
        }
        var preview: [UInt8] = []
        var previewEntries: [TIFFWriter.Entry] = []
        if let size = options.preview {
            let small = image.resized(width: size.width, height: size.height)
            preview = try JPEGEncoder.encode(rgb: small.pixels, width: size.width, height: size.height, quality: options.previewQuality)
            previewEntries = [.long(256, UInt32(size.width)), .long(257, UInt32(size.height)), shorts(258, [8, 8, 8]), .short(259, 7),
                              .short(262, 6), .short(277, 3), .long(278, UInt32(size.height)), .long(279, UInt32(preview.count))]
        }
        func directories(subIFD: UInt32, previewOffset: UInt32, sensorOffset: UInt32) -> [[TIFFWriter.Entry]] {
            var first: [TIFFWriter.Entry] = previewEntries + [
                .long(254, 1), .ascii(271, options.make), .ascii(272, options.model), .short(274, UInt16(options.orientation)),
                .long(330, subIFD), TIFFWriter.Entry(tag: 50706, type: .byte, count: 4, value: [1, 4, 0, 0]),
                .ascii(50708, "\(options.make) \(options.model)"),
                // XYZ to the sensor's (linear sRGB) colours, D65.
                TIFFWriter.Entry(tag: 50721, type: .srational, count: 9, value: [32406, -15372, -4986, -9689, 18758, 415, 557, -2040, 10570]
                    .flatMap { littleEndian(Int32($0)) + littleEndian(Int32(10_000)) }),
                TIFFWriter.Entry(tag: 50728, type: .rational, count: 3, value: (0..<3).flatMap { _ in littleEndian(UInt32(1)) + littleEndian(UInt32(1)) }),
                .short(50778, 21),
            ]
            if !preview.isEmpty { first.append(.long(273, previewOffset)) }
            if let time = options.captureTime { first.append(.ascii(306, time)) }
            let sensorDirectory: [TIFFWriter.Entry] = [
                .long(254, 0), .long(256, UInt32(width)), .long(257, UInt32(height)), .short(258, 16), .short(259, 1), .short(262, 32803),
                .long(273, sensorOffset), .short(277, 1), .long(278, UInt32(height)), .long(279, UInt32(sensor.count)), .short(284, 1),
                shorts(33421, [2, 2]), TIFFWriter.Entry(tag: 33422, type: .byte, count: 4, value: [0, 1, 1, 2]),
                .long(50714, 64), .long(50717, 4095),
            ]
            return [first, sensorDirectory]
        }
        let sized = directories(subIFD: 0, previewOffset: 0, sensorOffset: 0)
        let subIFD = UInt32(TIFFWriter.headerSize + TIFFWriter.size(of: sized[0]))
        let dataOffset = subIFD + UInt32(TIFFWriter.size(of: sized[1]))
        let (previewOffset, sensorOffset) = options.previewAfterSensor
            ? (dataOffset + UInt32(sensor.count), dataOffset) : (dataOffset, dataOffset + UInt32(preview.count))
        return TIFFWriter.block(ifds: directories(subIFD: subIFD, previewOffset: previewOffset, sensorOffset: sensorOffset),
                                nextIFD: [0, 0], trailer: options.previewAfterSensor ? sensor + preview : preview + sensor)
    }

    private static func shorts(_ tag: UInt16, _ values: [UInt16]) -> TIFFWriter.Entry {
        TIFFWriter.Entry(tag: tag, type: .short, count: UInt32(values.count), value: values.flatMap { littleEndian($0) })
    }

    /// x^2.2, the gamma a camera's development puts back.
    private static func pow22(_ x: Double) -> Double { x <= 0 ? 0 : pow(x, 2.2) }
}
