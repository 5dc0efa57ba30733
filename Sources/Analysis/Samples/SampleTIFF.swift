/// Writes uncompressed TIFF photos, as scanners and raw developers export them, for tests and
/// sample libraries: 8- or 16-bit samples, RGB or grayscale, in strips or tiles, with an
/// Orientation tag, the camera's tags and a capture time.
public enum SampleTIFF {
    public struct Layout: Sendable {
        public var bitsPerSample = 8
        public var grayscale = false
        /// Tiles of this side (a multiple of 16); nil: strips of about 8 KB.
        public var tileSide: Int?
        public var orientation = 1
        public var make: String?
        public var model: String?
        /// NewSubFileType 1 on the image: marked a reduced-resolution copy, as raw files mark
        /// the camera's preview (some scanners' TIFFs do too).
        public var markedReduced = false
        /// DateTimeOriginal ("2024:06:01 10:02:03"), in an EXIF directory IFD0 points to.
        public var captureTime: String?

        public init(bitsPerSample: Int = 8, grayscale: Bool = false, tileSide: Int? = nil, orientation: Int = 1,
                    make: String? = nil, model: String? = nil, markedReduced: Bool = false, captureTime: String? = nil) {
            self.markedReduced = markedReduced
            self.captureTime = captureTime
            self.bitsPerSample = bitsPerSample
            self.grayscale = grayscale
            self.tileSide = tileSide
            self.orientation = orientation
            self.make = make
            self.model = model
        }
    }

    public static func encode(_ image: RGBImage, layout: Layout = Layout()) -> [UInt8] {
        let samples = layout.grayscale ? 1 : 3
        let sampleBytes = layout.bitsPerSample / 8
        let pixelBytes = samples * sampleBytes
        // One pixel's stored bytes (little-endian 16-bit samples are the 8-bit value times 257).
        func pixel(_ x: Int, _ y: Int) -> [UInt8] {
            let base = 3 * (y * image.width + x)
            let r = Int(image.pixels[base]), g = Int(image.pixels[base + 1]), b = Int(image.pixels[base + 2])
            let gray: Int = (19595 * r + 38470 * g + 7471 * b + 32768) >> 16
            let values: [UInt8] = layout.grayscale ? [UInt8(gray)] : [UInt8(r), UInt8(g), UInt8(b)]
            return sampleBytes == 1 ? values : values.flatMap { littleEndian(UInt16($0) * 257) }
        }
        var chunks: [[UInt8]] = []
        var entries: [TIFFWriter.Entry] = []
        if let side = layout.tileSide {
            for tileY in stride(from: 0, to: image.height, by: side) {
                for tileX in stride(from: 0, to: image.width, by: side) {
                    var tile: [UInt8] = []
                    tile.reserveCapacity(side * side * pixelBytes)
                    for y in tileY..<(tileY + side) {
                        for x in tileX..<(tileX + side) {
                            tile += x < image.width && y < image.height ? pixel(x, y) : [UInt8](repeating: 0, count: pixelBytes)
                        }
                    }
                    chunks.append(tile)
                }
            }
            entries += [.long(322, UInt32(side)), .long(323, UInt32(side))]
        } else {
            let rowsPerStrip = max(1, 8192 / (image.width * pixelBytes))
            for top in stride(from: 0, to: image.height, by: rowsPerStrip) {
                var strip: [UInt8] = []
                for y in top..<min(image.height, top + rowsPerStrip) {
                    for x in 0..<image.width { strip += pixel(x, y) }
                }
                chunks.append(strip)
            }
            entries.append(.long(278, UInt32(rowsPerStrip)))
        }
        let (offsetsTag, countsTag): (UInt16, UInt16) = layout.tileSide == nil ? (273, 279) : (324, 325)
        entries += [
            .long(256, UInt32(image.width)), .long(257, UInt32(image.height)),
            TIFFWriter.Entry(tag: 258, type: .short, count: UInt32(samples), value: (0..<samples).flatMap { _ in littleEndian(UInt16(layout.bitsPerSample)) }),
            .short(259, 1), .short(262, layout.grayscale ? 1 : 2), .short(274, UInt16(layout.orientation)), .short(277, UInt16(samples)),
            .short(284, 1),
            longs(countsTag, chunks.map { UInt32($0.count) }),
        ]
        if layout.markedReduced { entries.append(.long(254, 1)) }
        if let make = layout.make { entries.append(.ascii(271, make)) }
        if let model = layout.model { entries.append(.ascii(272, model)) }
        // The EXIF directory follows IFD0, the pixel data both: their sizes (and so the offsets)
        // do not depend on the offsets' values.
        let exif: [TIFFWriter.Entry] = layout.captureTime.map { [.ascii(0x9003, $0)] } ?? []
        if !exif.isEmpty { entries.append(.long(0x8769, 0)) }
        let placeholder = entries + [longs(offsetsTag, chunks.map { _ in 0 })]
        let exifOffset = UInt32(TIFFWriter.headerSize + TIFFWriter.size(of: placeholder))
        if !exif.isEmpty { entries[entries.count - 1] = .long(0x8769, exifOffset) }
        var offset = exifOffset + UInt32(exif.isEmpty ? 0 : TIFFWriter.size(of: exif))
        var offsets: [UInt32] = []
        for chunk in chunks {
            offsets.append(offset)
            offset += UInt32(chunk.count)
        }
        let ifd0 = entries + [longs(offsetsTag, offsets)]
        return TIFFWriter.block(ifds: exif.isEmpty ? [ifd0] : [ifd0, exif], nextIFD: exif.isEmpty ? [0] : [0, 0],
                                trailer: chunks.flatMap { $0 })
    }

    private static func longs(_ tag: UInt16, _ values: [UInt32]) -> TIFFWriter.Entry {
        TIFFWriter.Entry(tag: tag, type: .long, count: UInt32(values.count), value: values.flatMap { littleEndian($0) })
    }
}
