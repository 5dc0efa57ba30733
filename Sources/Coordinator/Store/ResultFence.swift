import Analysis
import GRDB
import Shared

/// Rule 4, the fence: a RESULT is stored only if its scan is still running at the result's
/// generation, that generation is still its library's newest, and its (job, attempt, worker)
/// is the dispatch in flight. Checked here, inside the transaction that writes it, so no
/// cancel, supersede, requeue or restart can slip between the check and the write.
enum ResultFence {
    enum Verdict: Equatable {
        /// Store it; the job belongs to this scan (a verification job if `fullDecode`).
        case admit(scanID: Int64, fullDecode: Bool)
        /// For a generation that is no longer current (cancelled or superseded scan).
        case stale
        /// For an attempt no longer in flight (late, duplicate, requeued, another worker's).
        case duplicate
    }

    /// Decides, and on admission moves the job to `done` through its lifecycle (the caller
    /// writes the outcomes in the same transaction).
    static func admit(_ db: Database, result: Cull_V1_Result, workerID: String) throws -> Verdict {
        guard let (found, lifecycle) = try CullStore.job(db, id: result.jobID) else { return .duplicate }
        guard try CullStore.isCurrent(db, scanID: found.scanId, generation: result.generation) else { return .stale }
        var record = found, completed = lifecycle
        do throws(JobLifecycle.Refusal) {
            try completed.complete(attempt: result.attempt, workerID: workerID, generation: result.generation)
        } catch .otherGeneration {
            return .stale
        } catch {
            return .duplicate
        }
        record.apply(completed)
        try record.update(db)
        return .admit(scanID: record.scanId, fullDecode: record.fullDecode)
    }
}

extension CullStore {
    /// Stores a batch of results in one transaction, each only if the fence admits it.
    func applyResults(_ results: [ReceivedResult]) async throws -> ResultTally {
        guard !results.isEmpty else { return ResultTally() }
        return try await writer.write { db in
            var tally = ResultTally()
            let writer = try OutcomeWriter(db)
            for received in results {
                let result = received.result
                switch try ResultFence.admit(db, result: result, workerID: received.workerID) {
                case .stale:
                    tally.stale += 1
                case .duplicate:
                    tally.duplicate += 1
                case .admit(let scanID, let fullDecode):
                    let (analysed, failed, rejected) = try writer.write(result, pipelineVersion: Int64(received.pipelineVersion), fullDecode: fullDecode)
                    if rejected > 0 {
                        tally.rejectedOutcomes += rejected
                        tally.rejectingWorkers.insert(received.workerID)
                    }
                    try db.execute(sql: "UPDATE scans SET done = done + ?, failed = failed + ? WHERE id = ?",
                                   arguments: [analysed + failed, failed, scanID])
                    tally.applied += 1
                    tally.scansToCheck.insert(scanID)
                }
            }
            return tally
        }
    }
}

/// Writes one admitted result's outcomes into `photos`.
private struct OutcomeWriter {
    let db: Database
    let analysed: Statement
    let features: Statement
    let failed: Statement

    init(_ db: Database) throws {
        self.db = db
        analysed = try db.cachedStatement(sql: """
            UPDATE photos SET status = 'analysed', job_id = NULL, analysed_job_id = job_id, analysed_generation = ?, analysed_attempt = ?,
                pipeline_version = ?, sha256 = ?, sha256_head_tail = ?, phash = ?, dhash = ?, width = ?, height = ?, format = ?,
                orientation = ?, capture_time = ?, camera_make = ?, camera_model = ?, software = ?, modify_time = ?,
                exposure_time = ?, f_number = ?, iso = ?, exposure_bias = ?, sharpness = ?,
                mean_luma = ?, from_preview = ?, error_kind = NULL, error_message = NULL
            WHERE id = ? AND job_id = ? AND status = 'pending'
            """)
        features = try db.cachedStatement(sql: """
            INSERT OR REPLACE INTO photo_features (photo_id, window_phashes, thumbnail, mirror_phash, content_box, content_phash, chroma, detail,
                turned_phash, square_phash)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        failed = try db.cachedStatement(sql: """
            UPDATE photos SET status = 'failed', job_id = NULL, analysed_job_id = job_id, analysed_generation = ?, analysed_attempt = ?,
                pipeline_version = ?, error_kind = ?, error_message = ?
            WHERE id = ? AND job_id = ? AND status = 'pending'
            """)
    }

    /// Returns how many photos were stored analysed and failed, and how many outcomes were not
    /// stored as sent (rejected: see `Cull_V1_Counters.outcomesRejected`). `fullDecode`: the
    /// job asked for main images only, so features that do not say their source came from the
    /// main image.
    ///
    /// A worker's word is checked where it can be: features must be a photo's (a 32-byte
    /// SHA-256, a size, a thumbnail of the right size if any, no more windows than there are),
    /// and `WORKER_LOST` is the coordinator's to say. An outcome that fails is stored as an
    /// `internal` failure naming why, so the photo is not left pending and shows in
    /// `cull photos --status failed`; one for a photo that is not the job's is dropped.
    func write(_ result: Cull_V1_Result, pipelineVersion pipeline: Int64, fullDecode: Bool) throws -> (analysed: Int, failed: Int, rejected: Int) {
        var analysedCount = 0, failedCount = 0, rejected = 0
        func refuse(_ outcome: Cull_V1_Outcome, _ why: String) throws {
            try failed.execute(arguments: [
                result.generation, result.attempt, pipeline, "internal",
                "the worker's outcome was refused: \(why)", outcome.photoID, result.jobID,
            ])
            failedCount += db.changesCount
            rejected += 1
        }
        for outcome in result.outcomes {
            switch outcome.result {
            case .features(let f):
                if let why = f.malformation {
                    try refuse(outcome, why)
                    continue
                }
                // A worker sends 0 for a setting the file does not have (0 EV as well).
                let exposureKnown = f.exposureTime.setting != nil || f.fNumber.setting != nil || f.iso != 0
                try analysed.execute(arguments: [
                    // A digest of the head and tail only is kept apart: `sha256` is always of the
                    // whole file, the only digest that ever calls two files identical.
                    result.generation, result.attempt, pipeline, f.sha256HeadTail ? nil : f.sha256, f.sha256HeadTail ? f.sha256 : nil,
                    Int64(bitPattern: f.phash),
                    Int64(bitPattern: f.dhash), f.width, f.height, f.format, f.orientation,
                    f.captureTime.nilIfEmpty, f.cameraMake.nilIfEmpty, f.cameraModel.nilIfEmpty, f.software.nilIfEmpty, f.modifyTime.nilIfEmpty,
                    f.exposureTime.setting, f.fNumber.setting, f.iso == 0 ? nil : Int64(f.iso), exposureKnown ? f.exposureBias.finite : nil,
                    f.sharpness, f.meanLuma, f.mayComeFromPreview(fullDecode: fullDecode), outcome.photoID, result.jobID,
                ])
                guard db.changesCount > 0 else {  // not this job's pending photo
                    rejected += 1
                    continue
                }
                analysedCount += 1
                let content = f.hasContent ? ContentBoxColumn.encode(f.content) : nil
                // Worked out here from the thumbnail and the size, not sent: what finds a copy
                // turned 90° or cropped to a square.
                let derived = DerivedHashes(thumbnail: [UInt8](f.thumbnail), width: Int(f.width), height: Int(f.height))
                try features.execute(arguments: [
                    outcome.photoID, WindowHashesColumn.encode(f.windowPhash), f.thumbnail.isEmpty ? nil : f.thumbnail,
                    f.mirrorPhash == 0 ? nil : Int64(bitPattern: f.mirrorPhash), content, content == nil ? nil : Int64(bitPattern: f.content.phash),
                    ChromaLayout.isLayout(byteCount: f.chroma.count) ? f.chroma : nil,
                    f.detail.isEmpty ? nil : f.detail,
                    derived.turned.map { Int64(bitPattern: $0) }, derived.square.map { Int64(bitPattern: $0) },
                ])
            case .failure(let failure):
                switch failure.kind {
                case .workerLost, .unspecified, .UNRECOGNIZED:
                    try refuse(outcome, "failure kind \(failure.kind.storageName) (\(failure.message.prefix(500)))")
                    continue
                default:
                    break
                }
                try failed.execute(arguments: [
                    result.generation, result.attempt, pipeline, failure.kind.storageName,
                    String(failure.message.prefix(2000)), outcome.photoID, result.jobID,
                ])
                if db.changesCount == 0 { rejected += 1 }  // not this job's pending photo
                failedCount += db.changesCount
            case nil:
                continue
            }
        }
        // A photo the worker gave no outcome for is a worker bug: record it, do not leave it
        // pending forever.
        try db.execute(sql: """
            UPDATE photos SET status = 'failed', job_id = NULL, analysed_job_id = job_id, analysed_generation = ?,
                analysed_attempt = ?, pipeline_version = ?, error_kind = 'internal',
                error_message = path || ': the worker returned no outcome for this photo'
            WHERE job_id = ? AND status = 'pending'
            """, arguments: [result.generation, result.attempt, pipeline, result.jobID])
        failedCount += db.changesCount
        return (analysedCount, failedCount, rejected)
    }
}

extension Double {
    /// A positive, finite EXIF setting; nil for the 0 a worker sends when there is none.
    fileprivate var setting: Double? { isFinite && self > 0 ? self : nil }
    fileprivate var finite: Double? { isFinite ? self : nil }
}

extension Cull_V1_Features {
    /// The most bytes an EXIF text may hold: workers read at most 4 KiB of one (`ExifReader`,
    /// `TIFFDecoder`), which decoding as UTF-8 can make at most three times as long. More is no
    /// photo's metadata, and would only fill the database.
    static let exifTextLimit = 16_384

    /// Why these features cannot be a photo's, or nil.
    var malformation: String? {
        let side = LayoutThumbnail.side
        if sha256.count != 32 { return "a SHA-256 of \(sha256.count) bytes" }
        if width == 0 || height == 0 { return "no pixel size" }
        if !thumbnail.isEmpty && thumbnail.count != side * side { return "a thumbnail of \(thumbnail.count) bytes" }
        if !detail.isEmpty && !DetailLayout.isLayout(byteCount: detail.count) { return "a detail layout of \(detail.count) bytes" }
        if windowPhash.count > FeatureWindow.hashedCount { return "\(windowPhash.count) window hashes" }
        for (name, text) in [("capture time", captureTime), ("camera make", cameraMake), ("camera model", cameraModel),
                             ("software", software), ("modify time", modifyTime)] where text.utf8.count > Self.exifTextLimit {
            return "an EXIF \(name) of \(text.utf8.count) bytes"
        }
        return nil
    }

    /// Whether these features may have come from an embedded preview: they say so, or they do
    /// not say (a worker from before `source`) and the job allowed previews.
    func mayComeFromPreview(fullDecode: Bool) -> Bool {
        switch source {
        case .mainImage: false
        case .embeddedPreview: true
        case .unspecified, .UNRECOGNIZED: !fullDecode
        }
    }
}
