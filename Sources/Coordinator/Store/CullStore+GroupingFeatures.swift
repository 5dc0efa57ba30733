import Foundation
import GRDB

/// What grouping reads besides a scan's rows (`GroupingFeatureSource`), by photo id, in chunks.
/// Synchronous: grouping calls it from its own threads, never the cooperative pool.
extension CullStore: GroupingFeatureSource {
    /// Ids per query: far under SQLite's limit on bound parameters.
    static let featureChunk = 500

    func candidateHashes(of ids: [Int64], plan: CandidatePlan, holdingCropWindows: Bool) throws -> CompactHashes {
        var hashes = CompactHashes(plan: plan, holdingCropWindows: holdingCropWindows)
        hashes.reserve(ids.count)
        try forEachChunk(of: ids, select: """
            SELECT p.id, p.phash, f.window_phashes, f.mirror_phash, f.content_box, f.content_phash, f.turned_phash, f.square_phash
            FROM photos p LEFT JOIN photo_features f ON f.photo_id = p.id WHERE p.id IN
            """) { chunk, rows in
            var found: [Int64: (frame: UInt64, windows: [UInt64], mirror: UInt64?, content: UInt64?, turned: UInt64?, square: UInt64?)] = [:]
            while try rows.step() {
                let hasBox = ContentBoxColumn.decode(rows.blob(4)) != nil
                found[rows.int64(0)] = (UInt64(bitPattern: rows.int64(1)), WindowHashesColumn.decode(rows.blob(2)),
                                        rows.optionalInt64(3).map { UInt64(bitPattern: $0) },
                                        hasBox ? rows.optionalInt64(5).map { UInt64(bitPattern: $0) } : nil,
                                        rows.optionalInt64(6).map { UInt64(bitPattern: $0) },
                                        rows.optionalInt64(7).map { UInt64(bitPattern: $0) })
            }
            // In the order asked: row k of the hashes is the k-th id. A photo gone since
            // (it cannot be: grouping reads a finished scan) would still take its row.
            for id in chunk {
                let row = found[id] ?? (0, [], nil, nil, nil, nil)
                hashes.append(frame: row.frame, windows: row.windows, mirror: row.mirror, content: row.content, turned: row.turned, square: row.square)
            }
        }
        return hashes
    }

    /// Each photo's probed windows decoded from the column's bytes straight to its place in the
    /// result (0 where a photo has no such window): the search reads a million photos' this way.
    func cropWindows(of ids: ArraySlice<Int64>, plan: CandidatePlan) throws -> [UInt64] {
        let probed = plan.probedCropWindows  // made once, not once a photo
        var position: [Int64: Int] = [:]
        position.reserveCapacity(ids.count)
        for (index, id) in ids.enumerated() where position[id] == nil { position[id] = index }
        var out = [UInt64](repeating: 0, count: ids.count * probed.count)
        try forEachChunk(of: ids.sorted(), select: "SELECT photo_id, window_phashes FROM photo_features WHERE photo_id IN") { _, rows in
            while try rows.step() {
                guard let index = position[rows.int64(0)] else { continue }
                let bytes = rows.blob(1)
                let count = bytes.count % 8 == 0 ? bytes.count / 8 : 0  // a torn column is no windows
                for (column, k) in probed.enumerated() where k < count {
                    out[index * probed.count + column] = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: k * 8, as: UInt64.self))
                }
            }
        }
        // An id asked twice takes its first place's windows in every place.
        if position.count < ids.count {
            for (index, id) in ids.enumerated() where position[id]! != index {
                let first = position[id]!
                for column in probed.indices { out[index * probed.count + column] = out[first * probed.count + column] }
            }
        }
        return out
    }

    func layouts(of ids: [Int64]) throws -> [Int64: PhotoLayout] {
        var layouts: [Int64: PhotoLayout] = [:]
        layouts.reserveCapacity(ids.count)
        try forEachChunk(of: ids.sorted(), select: "SELECT photo_id, thumbnail, chroma, detail FROM photo_features WHERE photo_id IN") { _, rows in
            while try rows.step() { layouts[rows.int64(0)] = PhotoLayout(thumbnail: rows.bytes(1), chroma: rows.bytes(2), detail: rows.bytes(3)) }
        }
        return layouts
    }

    func windowHashes(of ids: [Int64]) throws -> [Int64: [UInt64]] {
        var windows: [Int64: [UInt64]] = [:]
        windows.reserveCapacity(ids.count)
        try forEachChunk(of: ids.sorted(), select: "SELECT photo_id, window_phashes FROM photo_features WHERE photo_id IN") { _, rows in
            while try rows.step() { windows[rows.int64(0)] = WindowHashesColumn.decode(rows.blob(1)) }
        }
        return windows
    }

    /// Runs `select` (ending in `IN`) for each chunk of `ids`, in one read, handing each chunk
    /// and its statement, ready to step through the chunk's rows, to `body`. The statement is
    /// driven through SQLite's C API (`RawStatement`) and prepared once for every chunk of the
    /// same size: grouping reads a million photos' layouts, crop windows and window hashes in
    /// chunks of 500, and GRDB's row cursor copied each blob into a `Data` first.
    ///
    /// Callers that file the rows by id pass the ids sorted: a chunk of ids in order reads its
    /// rows' pages in the file's order. Grouping asks for the photos a batch of candidates or
    /// neighbours pairs, ids in no order, and where the page cache no longer holds the database
    /// (a VM that pages out what was not read lately does, minutes after it was written) each
    /// chunk of 500 such ids read 500 pages scattered over the file: a million photos'
    /// neighbour step waited on the disk for most of its time.
    private func forEachChunk(of ids: [Int64], select: String, _ body: (ArraySlice<Int64>, RawStatement) throws -> Void) throws {
        try writer.read { db in
            var statements: [Int: RawStatement] = [:]  // by chunk size: the whole ones, and the last
            for chunk in ids.chunked(into: Self.featureChunk) {
                let statement: RawStatement
                if let prepared = statements[chunk.count] {
                    statement = prepared
                } else {
                    let marks = (1...chunk.count).map { "?\($0)" }.joined(separator: ",")
                    statement = try RawStatement(db, sql: "\(select) (\(marks))")
                    statements[chunk.count] = statement
                }
                for (position, id) in chunk.enumerated() { statement.bind(Int32(position + 1), id) }
                defer { statement.reset() }
                try body(chunk, statement)
            }
        }
    }
}
