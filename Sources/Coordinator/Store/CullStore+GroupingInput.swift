import GRDB

/// What grouping reads of a finished scan.
extension CullStore {
    /// What grouping reads of a scan, one row at a time (fetching every row first and mapping
    /// after would hold each photo's blobs twice at the peak): its rows, and the feature source
    /// to group them with, holding the search's hashes (`ScanFeatures`: the frames, mirror and
    /// content hashes and the overlay windows, read in the same pass). The crop windows, layout
    /// thumbnails and chroma layouts are read where grouping needs them (`GroupingFeatureSource`,
    /// CullStore+GroupingFeatures.swift).
    ///
    /// Stepped through SQLite's C API (`RawStatement`): 28 columns of a million rows through
    /// GRDB's `Row` took 2.4–4.5 s of the minute a million photos' grouping has. A scan of
    /// `inTwoFrom` photos or more is read in two halves of its ids on two of the pool's reader
    /// connections at once, and put together in the order of the ids, as one read gives them
    /// (bench/RESULTS.md, "The rows read through SQLite's C API").
    func groupingInput(scan: ScanRecord, inTwoFrom: Int = CullStore.inTwoFrom) async throws -> (photos: [GroupingPhoto], features: ScanFeatures) {
        let bounds = try await writer.read { db -> (low: Int64, high: Int64)? in
            let row = try Row.fetchOne(db, sql: "SELECT MIN(id), MAX(id) FROM photos WHERE library_id = ?", arguments: [scan.libraryID])
            guard let row, let low: Int64 = row[0], let high: Int64 = row[1] else { return nil }
            return (low, high)
        }
        guard let (low, high) = bounds else {
            return ([], ScanFeatures(store: self, photos: [], hashes: CompactHashes(plan: CandidatePlan(), holdingCropWindows: false)))
        }
        let total = Int(scan.total)
        guard total >= inTwoFrom else {
            let (photos, hashes) = try await groupingRows(scan: scan, ids: low..<(high + 1), expected: total)
            return (photos, ScanFeatures(store: self, photos: photos, hashes: hashes))
        }
        let middle = low + (high - low) / 2 + 1
        // In a task group, not `async let`: a group hands each half over, so the first half's
        // arrays, sized for both, take the second in place (an `async let` keeps its value,
        // and appending to it copied a million photos' rows).
        var halves: [(photos: [GroupingPhoto], hashes: CompactHashes)?] = [nil, nil]
        try await withThrowingTaskGroup(of: (Int, [GroupingPhoto], CompactHashes).self) { group in
            group.addTask {
                let read = try await self.groupingRows(scan: scan, ids: low..<middle, expected: total)
                return (0, read.photos, read.hashes)
            }
            group.addTask {
                let read = try await self.groupingRows(scan: scan, ids: middle..<(high + 1), expected: total / 2)
                return (1, read.photos, read.hashes)
            }
            for try await (half, photos, hashes) in group { halves[half] = (photos, hashes) }
        }
        guard var (photos, hashes) = halves[0], let rest = halves[1] else { throw CancellationError() }
        halves = []
        photos += rest.photos
        hashes.append(contentsOf: rest.hashes)
        return (photos, ScanFeatures(store: self, photos: photos, hashes: hashes))
    }

    /// The fewest photos a scan has for `groupingInput` to read it in two halves.
    static let inTwoFrom = 50_000

    /// `groupingInput`'s rows and hashes of the scan's photos with ids in `ids`, in the order of the ids.
    private func groupingRows(scan: ScanRecord, ids: Range<Int64>, expected: Int) async throws -> (photos: [GroupingPhoto], hashes: CompactHashes) {
        try await writer.read { db in
            let rows = try RawStatement(db, sql: """
                SELECT p.id, p.path, p.sha256, p.phash, p.dhash, p.width, p.height, p.size, p.sharpness,
                    p.from_preview, p.capture_time, f.mirror_phash, f.content_box, f.content_phash,
                    p.format, p.camera_make IS NOT NULL OR p.camera_model IS NOT NULL, p.mtime_ns, p.device, p.inode,
                    p.software, p.modify_time, p.exposure_time, p.f_number, p.iso, p.exposure_bias, f.window_phashes, f.turned_phash,
                    f.square_phash
                FROM photos p JOIN photo_seen s ON s.photo_id = p.id LEFT JOIN photo_features f ON f.photo_id = p.id
                WHERE p.library_id = ?1 AND s.seen_generation = ?2 AND p.status = ?3 AND p.id >= ?4 AND p.id < ?5
                ORDER BY p.id
                """)
            rows.bind(1, scan.libraryID)
            rows.bind(2, scan.generation)
            rows.bind(4, ids.lowerBound)
            rows.bind(5, ids.upperBound)
            var photos: [GroupingPhoto] = []
            photos.reserveCapacity(expected)
            // The overlay windows only: the crop windows are many, and read a chunk at a time.
            var hashes = CompactHashes(plan: CandidatePlan(), holdingCropWindows: false)
            hashes.reserve(expected)
            let policy = scan.keeperPolicy
            var editorNames = SavedByEditor.Names()
            try rows.with(PhotoStatus.analysed.rawValue, at: 3) { rows in
                while try rows.step() {
                    let path = rows.text(1) ?? ""
                    let captureText = rows.text(10)
                    let captureTime = captureText.flatMap(CaptureTime.seconds)
                    let contentBox = ContentBoxColumn.decode(rows.blob(12))
                    let photo = GroupingPhoto(
                        id: rows.int64(0), path: path, sha256: rows.bytes(2),
                        pHash: UInt64(bitPattern: rows.int64(3)), dHash: UInt64(bitPattern: rows.int64(4)),
                        width: Int(rows.int64(5)), height: Int(rows.int64(6)), fileSize: rows.int64(7), modified: rows.int64(16),
                        device: rows.int64(17), inode: rows.int64(18),
                        sharpness: rows.optionalDouble(8) ?? 0, fromPreview: rows.int64(9) != 0,
                        isCameraOriginal: Self.isCameraOriginal(format: rows.text(14), hasCamera: rows.int64(15) != 0,
                                                                captureTime: captureText, taken: captureTime,
                                                                software: rows.text(19), modifyTime: rows.text(20), names: &editorNames),
                        isReference: policy.isReference(path),
                        captureTime: captureTime,
                        exposure: ShotSettings.key(exposureTime: rows.optionalDouble(21), fNumber: rows.optionalDouble(22),
                                                   iso: rows.optionalInt64(23).map { Int(truncatingIfNeeded: $0) },
                                                   exposureBias: rows.optionalDouble(24)),
                        mirrorPHash: rows.optionalInt64(11).map { UInt64(bitPattern: $0) },
                        contentBox: contentBox,
                        contentPHash: rows.optionalInt64(13).map { UInt64(bitPattern: $0) },
                        turnedPHash: rows.optionalInt64(26).map { UInt64(bitPattern: $0) },
                        squarePHash: rows.optionalInt64(27).map { UInt64(bitPattern: $0) })
                    photos.append(photo)
                    // As `candidateHashes` reads them: a torn column is no windows.
                    let windows = rows.blob(25)
                    hashes.append(frame: photo.pHash, windowCount: windows.count % 8 == 0 ? windows.count / 8 : 0,
                                  window: { UInt64(littleEndian: windows.loadUnaligned(fromByteOffset: $0 * 8, as: UInt64.self)) },
                                  mirror: photo.mirrorPHash, content: contentBox == nil ? nil : photo.contentPHash, turned: photo.turnedPHash, square: photo.squarePHash)
                }
            }
            return (photos, hashes)
        }
    }

}
