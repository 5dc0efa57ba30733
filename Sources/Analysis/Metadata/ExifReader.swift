import CExif

/// Reads the EXIF tags cull stores with libexif (Debian's libexif12): capture time, camera,
/// orientation, the software that saved the file and when, the exposure settings, and the
/// embedded JPEG thumbnail, from a JPEG's APP1 "Exif" payload or a HEIF
/// Exif item. A block libexif cannot parse yields what it could read (often nothing), never
/// an error: metadata is a bonus, the pixels are the photo.
///
/// libexif reads at most 64 KiB of a block (an APP1 segment's limit), so a TIFF file's own
/// tags, which may lie anywhere in a file of hundreds of megabytes, are read by libtiff
/// (`TIFFDecoder`) and a RAW's by LibRaw (`RAWDecoder`).
public enum ExifReader {
    /// The six bytes that open a JPEG's EXIF payload and that libexif expects before the TIFF
    /// header (without them it would look for JPEG markers instead).
    static let header: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0, 0]

    /// `payload` starts with "Exif\0\0" and the TIFF header (a JPEG's APP1 segment after its
    /// length). Read in place.
    public static func read(payload: ArraySlice<UInt8>) -> PhotoMetadata {
        guard payload.count > header.count, payload.prefix(header.count).elementsEqual(header) else { return PhotoMetadata() }
        return payload.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress, let length = UInt32(exactly: buffer.count) else { return PhotoMetadata() }
            return read(base, length: length)
        }
    }

    /// `tiff` starts with the TIFF header ("II*\0" or "MM\0*"), as a HEIF Exif item does after
    /// its offset. Copied once behind the "Exif\0\0" header libexif wants.
    public static func read(tiff: ArraySlice<UInt8>) -> PhotoMetadata {
        read(payload: ArraySlice(header + tiff))
    }

    private static func read(_ bytes: UnsafePointer<UInt8>, length: UInt32) -> PhotoMetadata {
        guard let data = exif_data_new() else { return PhotoMetadata() }
        defer { exif_data_unref(data) }
        // Read what is there. FOLLOW_SPECIFICATION (on by default) would "fix" the block after
        // loading by adding the tags the standard requires, with made-up defaults.
        exif_data_unset_option(data, EXIF_DATA_OPTION_FOLLOW_SPECIFICATION)
        exif_data_load_data(data, bytes, length)
        let order = exif_data_get_byte_order(data)

        var metadata = PhotoMetadata()
        if let orientation = short(data, EXIF_IFD_0, EXIF_TAG_ORIENTATION, order), (1...8).contains(orientation) {
            metadata.orientation = Int(orientation)
        }
        metadata.cameraMake = ascii(data, EXIF_IFD_0, EXIF_TAG_MAKE)
        metadata.cameraModel = ascii(data, EXIF_IFD_0, EXIF_TAG_MODEL)
        metadata.software = ascii(data, EXIF_IFD_0, EXIF_TAG_SOFTWARE)
        metadata.modifyTime = ascii(data, EXIF_IFD_0, EXIF_TAG_DATE_TIME)
        metadata.exposureTime = rational(data, EXIF_IFD_EXIF, EXIF_TAG_EXPOSURE_TIME, order)
        metadata.fNumber = rational(data, EXIF_IFD_EXIF, EXIF_TAG_FNUMBER, order)
        metadata.iso = short(data, EXIF_IFD_EXIF, EXIF_TAG_ISO_SPEED_RATINGS, order).map(Int.init).flatMap { $0 > 0 ? $0 : nil }
        metadata.exposureBias = signedRational(data, EXIF_IFD_EXIF, EXIF_TAG_EXPOSURE_BIAS_VALUE, order)
        metadata.captureTime = PhotoMetadata.captureTime(
            original: ascii(data, EXIF_IFD_EXIF, EXIF_TAG_DATE_TIME_ORIGINAL),
            subSeconds: ascii(data, EXIF_IFD_EXIF, EXIF_TAG_SUB_SEC_TIME_ORIGINAL),
            offset: ascii(data, EXIF_IFD_EXIF, EXIF_TAG_OFFSET_TIME_ORIGINAL))
        // libexif copies IFD1's JPEGInterchangeFormat bytes when they lie inside the block.
        if let thumbnail = data.pointee.data, data.pointee.size > 0 {
            metadata.thumbnail = Array(UnsafeBufferPointer(start: thumbnail, count: Int(data.pointee.size)))
        }
        return metadata
    }

    /// A SHORT value (the first of its components).
    private static func short(_ data: UnsafeMutablePointer<ExifData>, _ ifd: ExifIfd, _ tag: ExifTag, _ order: ExifByteOrder) -> UInt16? {
        guard let entry = cull_exif_entry(data, ifd, tag), entry.pointee.format == EXIF_FORMAT_SHORT,
              entry.pointee.components >= 1, entry.pointee.size >= 2, let value = entry.pointee.data else { return nil }
        return exif_get_short(value, order)
    }

    /// A positive RATIONAL value (the first of its components); nil when absent or zero over zero.
    private static func rational(_ data: UnsafeMutablePointer<ExifData>, _ ifd: ExifIfd, _ tag: ExifTag, _ order: ExifByteOrder) -> Double? {
        guard let entry = cull_exif_entry(data, ifd, tag), entry.pointee.format == EXIF_FORMAT_RATIONAL,
              entry.pointee.components >= 1, entry.pointee.size >= 8, let value = entry.pointee.data else { return nil }
        let fraction = exif_get_rational(value, order)
        guard fraction.denominator > 0, fraction.numerator > 0 else { return nil }
        return Double(fraction.numerator) / Double(fraction.denominator)
    }

    /// A SRATIONAL value (the first of its components); nil when absent or over zero.
    private static func signedRational(_ data: UnsafeMutablePointer<ExifData>, _ ifd: ExifIfd, _ tag: ExifTag, _ order: ExifByteOrder) -> Double? {
        guard let entry = cull_exif_entry(data, ifd, tag), entry.pointee.format == EXIF_FORMAT_SRATIONAL,
              entry.pointee.components >= 1, entry.pointee.size >= 8, let value = entry.pointee.data else { return nil }
        let fraction = exif_get_srational(value, order)
        guard fraction.denominator != 0 else { return nil }
        return Double(fraction.numerator) / Double(fraction.denominator)
    }

    /// An ASCII value up to its first NUL, spaces trimmed; nil when empty or not ASCII-typed.
    private static func ascii(_ data: UnsafeMutablePointer<ExifData>, _ ifd: ExifIfd, _ tag: ExifTag) -> String? {
        guard let entry = cull_exif_entry(data, ifd, tag), entry.pointee.format == EXIF_FORMAT_ASCII,
              let value = entry.pointee.data, entry.pointee.size > 0, entry.pointee.size < 4096 else { return nil }
        let raw = UnsafeBufferPointer(start: value, count: Int(entry.pointee.size)).prefix { $0 != 0 }
        let text = String(decoding: raw, as: UTF8.self).trimmingSpaces()
        return text.isEmpty ? nil : text
    }
}
