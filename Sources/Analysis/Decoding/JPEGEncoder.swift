import CTurboJPEG

/// Encodes RGB pixels as baseline JPEG: for sample libraries, tests and benchmarks.
public enum JPEGEncoder {
    public struct EncodeError: Error, CustomStringConvertible {
        public let description: String
    }

    /// - Parameters:
    ///   - rgb: width * height * 3 bytes, row-major.
    ///   - exif: a TIFF-structured EXIF block to store in an APP1 segment, if any.
    public static func encode(rgb: [UInt8], width: Int, height: Int, quality: Int, exif: [UInt8]? = nil) throws -> [UInt8] {
        precondition(rgb.count == width * height * 3)
        guard let handle = tjInitCompress() else { throw EncodeError(description: "tjInitCompress failed") }
        defer { tjDestroy(handle) }
        var buffer: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        let rc = rgb.withUnsafeBufferPointer {
            tjCompress2(handle, $0.baseAddress, Int32(width), 0, Int32(height), Int32(TJPF_RGB.rawValue),
                        &buffer, &size, Int32(TJSAMP_420.rawValue), Int32(quality), 0)
        }
        defer { if let buffer { tjFree(buffer) } }
        guard rc == 0, let buffer else {
            throw EncodeError(description: String(cString: tjGetErrorStr2(handle)))
        }
        var jpeg = Array(UnsafeBufferPointer(start: buffer, count: Int(size)))
        if let exif {
            // APP1 right after SOI: FF E1, length, "Exif\0\0", the TIFF block.
            let payload = Array("Exif".utf8) + [0, 0] + exif
            let length = payload.count + 2
            precondition(length <= 0xFFFF, "EXIF block too large for one segment")
            let segment: [UInt8] = [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
            jpeg.insert(contentsOf: segment, at: 2)
        }
        return jpeg
    }
}
