import GRDB
import Shared

/// Verification: photos whose features came from an embedded preview are analysed again from
/// their main image before grouping may call them near-duplicates (a preview can be stale: an
/// edited copy that kept its camera's thumbnail looks exactly like the original).
extension CullStore {
    /// Sends `photos` back for analysis from their main image, in verification jobs of at most
    /// `jobSize` photos, if the scan is still current (rule 4). Only photos of this scan still
    /// analysed from a possible preview are sent; the scan counts them as not done again, so it
    /// completes (and groups again) only when they are back. Returns the jobs to dispatch.
    func requestVerification(scan: ScanRecord, photos: [(id: Int64, path: String)], jobSize: Int) async throws -> [JobSpec] {
        guard !photos.isEmpty else { return [] }
        return try await writer.write { db in
            try Self.requireCurrent(db, scanID: scan.id, generation: scan.generation)
            let reopen = try db.cachedStatement(sql: """
                UPDATE photos SET status = ? WHERE id = ? AND status = ? AND from_preview = 1
                    AND EXISTS (SELECT 1 FROM photo_seen WHERE photo_id = photos.id AND seen_generation = ?)
                """)
            var sent: [(id: Int64, path: String)] = []
            for photo in photos {
                try reopen.execute(arguments: [PhotoStatus.pending, photo.id, PhotoStatus.analysed, scan.generation])
                if db.changesCount > 0 { sent.append(photo) }
            }
            try db.execute(sql: "UPDATE scans SET done = done - ?, verifying = verifying + ? WHERE id = ?",
                           arguments: [sent.count, sent.count, scan.id])
            return try sent.chunked(into: max(1, jobSize)).map { chunk in
                try Self.insertJob(db, scan: scan, photos: Array(chunk), fullDecode: true)
            }
        }
    }
}
