import Crypto
import Foundation
import GRDB
import Shared

/// A rescan that changed nothing keeps its groups: grouping is the coordinator's heaviest work,
/// and its result depends only on which analyses it reads and the rules it applies.
extension CullStore {
    /// A digest of what grouping `scan` would read and how: every analysed photo of the scan by
    /// its id and the attempt that analysed it (attempt tokens are never reused, so a photo
    /// analysed again, or verified from its main image, changes the digest), and `rules` (the
    /// grouper's settings and the version of its code). Read from the indexed columns only, not
    /// from the features: a digest of a million rows costs a fraction of grouping them.
    func groupingDigest(scan: ScanRecord, rules: String) async throws -> String {
        try await writer.read { db in
            var hash = SHA256()
            hash.update(data: Data(rules.utf8))
            let rows = try Row.fetchCursor(db, sql: """
                SELECT p.id, p.analysed_attempt FROM photos p JOIN photo_seen s ON s.photo_id = p.id
                WHERE p.library_id = ? AND s.seen_generation = ? AND p.status = ? ORDER BY p.id
                """, arguments: [scan.libraryID, scan.generation, PhotoStatus.analysed])
            var buffer: [Int64] = []
            buffer.reserveCapacity(8192)
            while let row = try rows.next() {
                buffer.append(row[0])
                buffer.append((row[1] as Int64?) ?? -1)
                if buffer.count >= 8192 {
                    buffer.withUnsafeBytes { hash.update(bufferPointer: $0) }
                    buffer.removeAll(keepingCapacity: true)
                }
            }
            buffer.withUnsafeBytes { hash.update(bufferPointer: $0) }
            return hash.finalize().map { String(format: "%02x", $0) }.joined()
        }
    }

    /// The newest finished scan of the same library that grouped exactly this input.
    func doneScan(library: Int64, digest: String) async throws -> Int64? {
        try await writer.read { db in
            try Int64.fetchOne(db, sql: """
                SELECT id FROM scans WHERE library_id = ? AND grouping_digest = ? AND state = ? ORDER BY id DESC LIMIT 1
                """, arguments: [library, digest, ScanState.done])
        }
    }

    /// Finishes `scan` with the groups of `earlier` (same input, same rules), only if `scan` is
    /// still current (rule 4). Returns how many groups it kept, nil if the scan ended meanwhile.
    func finalize(scan: ScanRecord, reusingGroupsOf earlier: Int64, digest: String) async throws -> Int? {
        try await writer.write { db in
            guard try Self.isCurrent(db, scanID: scan.id, generation: scan.generation) else { return nil }
            try db.execute(sql: "DELETE FROM group_members WHERE group_id IN (SELECT id FROM groups WHERE scan_id = ?)", arguments: [scan.id])
            try db.execute(sql: "DELETE FROM groups WHERE scan_id = ?", arguments: [scan.id])
            // The groups are not copied: the scan names the scan that holds them (that scan's
            // own source, if it kept another's in turn), which `groups(scanID:)` reads.
            let source = try Int64.fetchOne(db, sql: "SELECT COALESCE(groups_of, id) FROM scans WHERE id = ?", arguments: [earlier]) ?? earlier
            let kept = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM groups WHERE scan_id = ?", arguments: [source]) ?? 0
            try db.execute(sql: "UPDATE scans SET state = ?, finished_at = ?, grouping_digest = ?, groups_of = ? WHERE id = ?",
                           arguments: [ScanState.done, Date().timeIntervalSince1970, digest, source, scan.id])
            return kept
        }
    }
}
