import CTIFF

/// Where a TIFF-based raw file's JPEG previews end, read from its directories in the head of
/// the file with libtiff: how long a head must be for LibRaw to take the preview from it
/// (`RAWDecoder.previewFromHead`). LibRaw says nothing of a preview that ends past what it
/// reads, so without this each longer head is a guess.
enum RAWHead {
    /// Directories looked at, over the chain and the sub-directories together.
    static let maxDirectories = 32

    /// The end of the furthest JPEG image (old-style JPEGInterchangeFormat, or JPEG-compressed
    /// strips or tiles that are not sensor data) among the directories the head holds; nil when
    /// libtiff cannot read the head's first directory or none is found.
    static func previewEnd(_ head: [UInt8]) -> Int? {
        _ = TIFFDecoder.silenced
        return head.withUnsafeBufferPointer { buffer -> Int? in
            guard let base = buffer.baseAddress else { return nil }
            var memory = cull_tiff_memory(data: base, size: tmsize_t(buffer.count), offset: 0)
            return withUnsafeMutablePointer(to: &memory) { memory -> Int? in
                guard let tiff = cull_tiff_open(memory) else { return nil }
                defer { TIFFClose(tiff) }
                return furthestPreview(tiff)
            }
        }
    }

    private static func furthestPreview(_ tiff: OpaquePointer) -> Int? {
        var furthest: Int?
        var subDirectories: [UInt64] = []
        var visited = 0
        // The chain from the first directory, then each sub-directory any of them lists.
        repeat {
            visited += 1
            if let end = previewEnd(in: tiff) { furthest = max(furthest ?? 0, end) }
            subDirectories += listedSubDirectories(tiff)
        } while visited < maxDirectories && TIFFReadDirectory(tiff) == 1
        for offset in subDirectories.prefix(maxDirectories - visited) where TIFFSetSubDirectory(tiff, offset) == 1 {
            if let end = previewEnd(in: tiff) { furthest = max(furthest ?? 0, end) }
        }
        return furthest
    }

    /// The end of the current directory's JPEG image, if it holds one that is not sensor data.
    private static func previewEnd(in tiff: OpaquePointer) -> Int? {
        var start: UInt64 = 0, length: UInt64 = 0
        if cull_tiff_uint64(tiff, UInt32(TIFFTAG_JPEGIFOFFSET), &start) == 1, cull_tiff_uint64(tiff, UInt32(TIFFTAG_JPEGIFBYTECOUNT), &length) == 1,
           start > 0, length > 0 {
            return end(start, length)
        }
        var compression: UInt16 = 0, photometric: UInt16 = 0
        guard cull_tiff_uint16(tiff, UInt32(TIFFTAG_COMPRESSION), &compression) == 1,
              compression == UInt16(COMPRESSION_OJPEG) || compression == UInt16(COMPRESSION_JPEG) else { return nil }
        // Sensor data may be lossless JPEG too (DNG, CR2): colour filter array or linear raw.
        if cull_tiff_uint16(tiff, UInt32(TIFFTAG_PHOTOMETRIC), &photometric) == 1,
           photometric == UInt16(PHOTOMETRIC_CFA) || photometric == 34892 { return nil }
        let pieces = TIFFNumberOfStrips(tiff)  // strips, or tiles for a tiled image
        guard pieces > 0, pieces <= 4096 else { return nil }
        var furthest = 0
        for piece in 0..<pieces {
            var failed: Int32 = 0
            let offset = TIFFGetStrileOffsetWithErr(tiff, piece, &failed)
            guard failed == 0 else { return nil }
            let count = TIFFGetStrileByteCountWithErr(tiff, piece, &failed)
            guard failed == 0, let pieceEnd = end(offset, count) else { return nil }
            furthest = max(furthest, pieceEnd)
        }
        return furthest
    }

    private static func listedSubDirectories(_ tiff: OpaquePointer) -> [UInt64] {
        var count: UInt16 = 0
        var offsets: UnsafeMutablePointer<UInt64>?
        guard cull_tiff_subifds(tiff, &count, &offsets) == 1, let offsets else { return [] }
        return Array(UnsafeBufferPointer(start: offsets, count: Int(min(count, UInt16(maxDirectories)))))
    }

    private static func end(_ start: UInt64, _ length: UInt64) -> Int? {
        let (sum, overflow) = start.addingReportingOverflow(length)
        return overflow || sum > UInt64(Int.max) ? nil : Int(sum)
    }
}
