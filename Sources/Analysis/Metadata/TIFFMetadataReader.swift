/// Reads the few EXIF tags cull stores from a TIFF-structured block (the payload of a JPEG
/// APP1 "Exif" segment, or a HEIF Exif item). Defensive by construction: every offset is
/// bounds-checked, loops are bounded, and a malformed block yields what was readable.
public enum TIFFMetadataReader {
    private static let maxEntriesPerIFD = 512

    public static func read(_ tiff: ArraySlice<UInt8>) -> PhotoMetadata {
        var metadata = PhotoMetadata()
        // Read in place: the block may be a whole TIFF file of hundreds of megabytes.
        let bytes = tiff
        guard bytes.count >= 8 else { return metadata }
        let little: Bool
        switch (bytes[bytes.startIndex], bytes[bytes.startIndex + 1]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: return metadata
        }
        let reader = Reader(bytes: bytes, little: little)
        guard reader.u16(2) == 42, let ifd0 = reader.u32(4) else { return metadata }

        var exifIFD: Int?
        var offsetTime: String?
        var dateTimeOriginal: String?
        var subSeconds: String?
        let ifd1 = reader.forEachEntry(ifd: Int(ifd0)) { tag, type, count, valueOffset in
            switch tag {
            case 0x0112:
                if let value = reader.u16(valueOffset), (1...8).contains(value) { metadata.orientation = Int(value) }
            case 0x010F: metadata.cameraMake = reader.ascii(type: type, count: count, at: valueOffset)
            case 0x0110: metadata.cameraModel = reader.ascii(type: type, count: count, at: valueOffset)
            case 0x8769: exifIFD = reader.u32(valueOffset).map(Int.init)
            default: break
            }
        }
        if let exifIFD {
            _ = reader.forEachEntry(ifd: exifIFD) { tag, type, count, valueOffset in
                switch tag {
                case 0x9003: dateTimeOriginal = reader.ascii(type: type, count: count, at: valueOffset)
                case 0x9011: offsetTime = reader.ascii(type: type, count: count, at: valueOffset)
                case 0x9291: subSeconds = reader.ascii(type: type, count: count, at: valueOffset)
                default: break
                }
            }
        }
        if let dateTimeOriginal, !dateTimeOriginal.isEmpty {
            // As exiftool's SubSecDateTimeOriginal: "2024:06:01 10:02:03.45+02:00". The
            // fraction tells burst frames of one second apart.
            let fraction = (subSeconds ?? "").filter { $0 != " " }
            let digits = fraction.isEmpty || !fraction.allSatisfy({ ("0"..."9").contains($0) }) ? "" : "." + fraction
            metadata.captureTime = dateTimeOriginal + digits + (offsetTime ?? "")
        }
        if let ifd1, ifd1 > 0 {
            var start: Int?
            var length: Int?
            _ = reader.forEachEntry(ifd: ifd1) { tag, _, _, valueOffset in
                if tag == 0x0201 { start = reader.u32(valueOffset).map(Int.init) }
                if tag == 0x0202 { length = reader.u32(valueOffset).map(Int.init) }
            }
            if let start, let length, length > 0, start >= 0, start + length <= bytes.count {
                metadata.thumbnail = start..<(start + length)
            }
        }
        return metadata
    }

    /// Offsets are from the start of the TIFF block (the slice's first byte).
    private struct Reader {
        let bytes: ArraySlice<UInt8>
        let little: Bool

        func u16(_ offset: Int) -> UInt16? {
            guard offset >= 0, offset + 2 <= bytes.count else { return nil }
            let a = UInt16(bytes[bytes.startIndex + offset]), b = UInt16(bytes[bytes.startIndex + offset + 1])
            return little ? a | b << 8 : a << 8 | b
        }

        func u32(_ offset: Int) -> UInt32? {
            guard let hi = u16(little ? offset + 2 : offset), let lo = u16(little ? offset : offset + 2) else { return nil }
            return UInt32(hi) << 16 | UInt32(lo)
        }

        /// An ASCII value: inline when it fits in four bytes, else at the offset stored there.
        func ascii(type: UInt16, count: Int, at valueOffset: Int) -> String? {
            guard type == 2, count > 0, count < 4096 else { return nil }
            let start = count <= 4 ? valueOffset : (u32(valueOffset).map(Int.init) ?? -1)
            guard start >= 0, start + count <= bytes.count else { return nil }
            let raw = bytes[(bytes.startIndex + start)..<(bytes.startIndex + start + count)].prefix { $0 != 0 }
            let text = String(decoding: raw, as: UTF8.self).trimmingCharacters(in: " ")
            return text.isEmpty ? nil : text
        }

        /// Calls `body` for each entry of the IFD at `ifd`; returns the next IFD's offset.
        func forEachEntry(ifd: Int, _ body: (_ tag: UInt16, _ type: UInt16, _ count: Int, _ valueOffset: Int) -> Void) -> Int? {
            guard let entries = u16(ifd) else { return nil }
            let count = min(Int(entries), TIFFMetadataReader.maxEntriesPerIFD)
            for index in 0..<count {
                let entry = ifd + 2 + index * 12
                guard let tag = u16(entry), let type = u16(entry + 2), let n = u32(entry + 4) else { return nil }
                body(tag, type, Int(n), entry + 8)
            }
            return u32(ifd + 2 + count * 12).map(Int.init)
        }
    }
}

private extension String {
    func trimmingCharacters(in character: Character) -> String {
        var slice = Substring(self)
        while slice.first == character { slice.removeFirst() }
        while slice.last == character { slice.removeLast() }
        return String(slice)
    }
}
