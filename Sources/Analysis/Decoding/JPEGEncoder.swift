import CTurboJPEG

/// Encodes RGB pixels as JPEG: for sample libraries, tests and benchmarks. Baseline YCbCr by
/// default; progressive, and the CMYK flavours print workflows produce, on request.
public enum JPEGEncoder {
    public struct EncodeError: Error, CustomStringConvertible {
        public let description: String
    }

    /// How the pixels are stored in the file.
    public enum ColorSpace: Sendable, Equatable {
        /// YCbCr, 4:2:0, with a JFIF header: what cameras and most software write.
        case ycbcr
        /// Adobe YCCK (APP14 transform 2): CMYK stored Adobe-inverted (0 = full ink), C, M and Y
        /// turned into luma and chroma like RGB into YCbCr. Photoshop's usual CMYK JPEG.
        /// TurboJPEG writes it (with the APP14 marker) whenever it compresses TJPF_CMYK pixels.
        case ycck
        /// Adobe CMYK (APP14 transform 0): four untransformed channels, stored Adobe-inverted.
        /// TurboJPEG cannot write this colorspace, so each channel is compressed as a grayscale
        /// JPEG and the four are put together as the scans of one 4-component JPEG.
        case adobeCMYK
        /// CMYK without an Adobe marker, stored uninverted (0 = no ink); built like `adobeCMYK`.
        case plainCMYK
    }

    public struct Options: Sendable, Equatable {
        public var quality: Int
        /// Progressive scans (TJFLAG_PROGRESSIVE) instead of one baseline scan per component.
        public var progressive: Bool
        public var colorSpace: ColorSpace
        /// A TIFF-structured EXIF block to store in an APP1 segment, if any.
        public var exif: [UInt8]?

        public init(quality: Int = 85, progressive: Bool = false, colorSpace: ColorSpace = .ycbcr, exif: [UInt8]? = nil) {
            self.quality = quality
            self.progressive = progressive
            self.colorSpace = colorSpace
            self.exif = exif
        }
    }

    /// Baseline YCbCr.
    /// - Parameters:
    ///   - rgb: width * height * 3 bytes, row-major.
    ///   - exif: a TIFF-structured EXIF block to store in an APP1 segment, if any.
    public static func encode(rgb: [UInt8], width: Int, height: Int, quality: Int, exif: [UInt8]? = nil) throws -> [UInt8] {
        try encode(rgb: rgb, width: width, height: height, options: Options(quality: quality, exif: exif))
    }

    /// - Parameter rgb: width * height * 3 bytes, row-major.
    public static func encode(rgb: [UInt8], width: Int, height: Int, options: Options) throws -> [UInt8] {
        precondition(rgb.count == width * height * 3)
        let flags = options.progressive ? TJFLAG_PROGRESSIVE : 0
        var jpeg: [UInt8]
        switch options.colorSpace {
        case .ycbcr:
            jpeg = try compress(rgb, width: width, height: height, format: TJPF_RGB, subsampling: TJSAMP_420,
                                quality: options.quality, flags: flags)
        case .ycck:
            jpeg = try compress(cmyk(fromRGB: rgb, adobeInverted: true), width: width, height: height, format: TJPF_CMYK,
                                subsampling: TJSAMP_420, quality: options.quality, flags: flags)
        case .adobeCMYK, .plainCMYK:
            let adobe = options.colorSpace == .adobeCMYK
            let pixels = cmyk(fromRGB: rgb, adobeInverted: adobe)
            var channels: [[UInt8]] = []
            for channel in 0..<4 {
                var plane = [UInt8](repeating: 0, count: width * height)
                for index in plane.indices { plane[index] = pixels[index * 4 + channel] }
                channels.append(try compress(plane, width: width, height: height, format: TJPF_GRAY, subsampling: TJSAMP_GRAY,
                                             quality: options.quality, flags: flags))
            }
            jpeg = try mergeChannels(channels, adobeMarker: adobe)
        }
        if let exif = options.exif {
            // APP1 right after SOI: FF E1, length, "Exif\0\0", the TIFF block.
            let payload = Array("Exif".utf8) + [0, 0] + exif
            let length = payload.count + 2
            precondition(length <= 0xFFFF, "EXIF block too large for one segment")
            let segment: [UInt8] = [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
            jpeg.insert(contentsOf: segment, at: 2)
        }
        return jpeg
    }

    /// CMYK from RGB the naive way (K from the brightest channel; no colour management), so
    /// that a decoder's CMYK-to-luma conversion gives back the RGB image's luma. Adobe-inverted
    /// values store 255 - ink, as Photoshop writes them.
    public static func cmyk(fromRGB rgb: [UInt8], adobeInverted: Bool) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: rgb.count / 3 * 4)
        for index in 0..<(rgb.count / 3) {
            let r = Int(rgb[index * 3]), g = Int(rgb[index * 3 + 1]), b = Int(rgb[index * 3 + 2])
            // Inverted values (255 - ink): K is the brightest channel, and C, M, Y what is left
            // of each channel once K is taken out, so that r == c * k / 255.
            let k = max(r, g, b)
            func share(_ value: Int) -> Int { k == 0 ? 255 : (value * 255 + k / 2) / k }
            let inverted = (share(r), share(g), share(b), k)
            out[index * 4] = UInt8(adobeInverted ? inverted.0 : 255 - inverted.0)
            out[index * 4 + 1] = UInt8(adobeInverted ? inverted.1 : 255 - inverted.1)
            out[index * 4 + 2] = UInt8(adobeInverted ? inverted.2 : 255 - inverted.2)
            out[index * 4 + 3] = UInt8(adobeInverted ? inverted.3 : 255 - inverted.3)
        }
        return out
    }

    private static func compress(_ pixels: [UInt8], width: Int, height: Int, format: TJPF, subsampling: TJSAMP,
                                 quality: Int, flags: Int32) throws -> [UInt8] {
        guard let handle = tjInitCompress() else { throw EncodeError(description: "tjInitCompress failed") }
        defer { tjDestroy(handle) }
        var buffer: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        let rc = pixels.withUnsafeBufferPointer {
            tjCompress2(handle, $0.baseAddress, Int32(width), 0, Int32(height), Int32(format.rawValue),
                        &buffer, &size, Int32(subsampling.rawValue), Int32(quality), flags)
        }
        defer { if let buffer { tjFree(buffer) } }
        guard rc == 0, let buffer else {
            throw EncodeError(description: String(cString: tjGetErrorStr2(handle)))
        }
        return Array(UnsafeBufferPointer(start: buffer, count: Int(size)))
    }

    // MARK: - Four grayscale JPEGs into one CMYK JPEG

    /// One marker segment of a JPEG: its marker, its body (after the length) and, for SOS, the
    /// entropy-coded data that follows it.
    private struct Segment {
        var marker: UInt8
        var body: [UInt8]
        var entropyCoded: [UInt8] = []
    }

    private static func segments(_ jpeg: [UInt8]) throws -> [Segment] {
        guard jpeg.count >= 4, jpeg[0] == 0xFF, jpeg[1] == 0xD8 else { throw EncodeError(description: "no SOI in TurboJPEG's output") }
        var result: [Segment] = []
        var offset = 2
        while offset + 1 < jpeg.count {
            guard jpeg[offset] == 0xFF else { throw EncodeError(description: "no marker at offset \(offset)") }
            let marker = jpeg[offset + 1]
            if marker == 0xFF { offset += 1; continue }  // fill byte
            if marker == 0xD9 { return result }
            guard offset + 4 <= jpeg.count else { break }
            let length = Int(jpeg[offset + 2]) << 8 | Int(jpeg[offset + 3])
            guard length >= 2, offset + 2 + length <= jpeg.count else { break }
            var segment = Segment(marker: marker, body: Array(jpeg[(offset + 4)..<(offset + 2 + length)]))
            offset += 2 + length
            if marker == 0xDA {
                // Entropy-coded data runs to the next marker that is neither a stuffed 00 nor a restart.
                let start = offset
                while offset + 1 < jpeg.count, !(jpeg[offset] == 0xFF && jpeg[offset + 1] != 0 && !(0xD0...0xD7).contains(jpeg[offset + 1])) {
                    offset += 1
                }
                segment.entropyCoded = Array(jpeg[start..<offset])
            }
            result.append(segment)
        }
        throw EncodeError(description: "TurboJPEG's output ends without EOI")
    }

    /// Takes four single-component JPEGs of the same size and quality settings and writes them as
    /// one JPEG with four components (ids 1...4) whose scans are the originals' scans, unchanged:
    /// a single-component scan codes the same blocks in the same order whether its component is
    /// alone in the frame or one of four with 1x1 sampling. Each channel keeps its own
    /// quantization table (0...3) and its Huffman tables, redefined before its scans.
    private static func mergeChannels(_ channels: [[UInt8]], adobeMarker: Bool) throws -> [UInt8] {
        var tables: [UInt8] = []       // DQT body: one table per channel
        var frameMarker: UInt8?
        var frameHeader: [UInt8]?      // precision, height, width
        var scans: [UInt8] = []
        for (index, channel) in channels.enumerated() {
            for segment in try segments(channel) {
                switch segment.marker {
                case 0xDB:
                    guard segment.body.count == 65, segment.body[0] == 0 else {
                        throw EncodeError(description: "expected one 8-bit quantization table per channel")
                    }
                    tables += [UInt8(index)] + segment.body.dropFirst()
                case 0xC0, 0xC1, 0xC2:
                    let body = segment.body
                    guard body.count == 9, body[5] == 1, body[7] == 0x11 else {
                        throw EncodeError(description: "expected a single-component frame")
                    }
                    let header = Array(body[0..<5])
                    guard frameHeader == nil || (frameHeader == header && frameMarker == segment.marker) else {
                        throw EncodeError(description: "the channels' frames differ")
                    }
                    frameHeader = header
                    frameMarker = segment.marker
                case 0xC4:
                    scans += self.segment(0xC4, segment.body)
                case 0xDA:
                    var body = segment.body
                    guard body.count == 6, body[0] == 1 else { throw EncodeError(description: "expected single-component scans") }
                    body[1] = UInt8(index + 1)
                    scans += self.segment(0xDA, body) + segment.entropyCoded
                case 0xE0...0xEF, 0xFE:
                    continue  // JFIF and comments: not for a CMYK file
                default:
                    throw EncodeError(description: "unexpected marker FF\(String(segment.marker, radix: 16, uppercase: true)) in a channel")
                }
            }
        }
        guard let frameMarker, let frameHeader else { throw EncodeError(description: "no frame header in TurboJPEG's output") }
        var jpeg: [UInt8] = [0xFF, 0xD8]
        if adobeMarker {
            // "Adobe", version 100, flags0, flags1, transform 0 (CMYK, no colour transform).
            jpeg += segment(0xEE, Array("Adobe".utf8) + [0x00, 0x64, 0x00, 0x00, 0x00, 0x00, 0x00])
        }
        jpeg += segment(0xDB, tables)
        var frame = frameHeader + [4]
        for component in 0..<4 { frame += [UInt8(component + 1), 0x11, UInt8(component)] }
        jpeg += segment(frameMarker, frame)
        jpeg += scans
        jpeg += [0xFF, 0xD9]
        return jpeg
    }

    private static func segment(_ marker: UInt8, _ body: [UInt8]) -> [UInt8] {
        let length = body.count + 2
        return [0xFF, marker, UInt8(length >> 8), UInt8(length & 0xFF)] + body
    }
}
