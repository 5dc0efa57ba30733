import Foundation
import GRDB
import Shared

/// Finishing a scan: the fenced write of its groups, and reading them back (what grouping reads
/// of it: CullStore+GroupingInput.swift).
extension CullStore {
    /// Whether every photo the finished walk found has an outcome.
    func isComplete(scanID: Int64) async throws -> Bool {
        try await writer.read { db in
            try Bool.fetchOne(db, sql: "SELECT walk_complete = 1 AND done >= total FROM scans WHERE id = ? AND state = ?",
                              arguments: [scanID, ScanState.running]) ?? false
        }
    }

    /// A camera original, for the keeper chain: the camera's make or model and a capture time
    /// in its EXIF, in a format cameras write (JPEG, HEIF, TIFF), and not saved by an editor
    /// (`SavedByEditor`: its Software, or a ModifyDate after the capture). An export to PNG or
    /// WebP, a re-encode whose tool dropped the EXIF, or an editor's export that kept it, is not
    /// one (docs/FEATURES.md, "Keepers").
    static func isCameraOriginal(format: String?, hasCamera: Bool, captureTime: String?,
                                 software: String? = nil, modifyTime: String? = nil) -> Bool {
        var names = SavedByEditor.Names()
        return isCameraOriginal(format: format, hasCamera: hasCamera, captureTime: captureTime,
                                taken: captureTime.flatMap(CaptureTime.seconds), software: software, modifyTime: modifyTime, names: &names)
    }

    /// The same, for a scan's photos one after another: `taken` is `captureTime` read
    /// (`CaptureTime.seconds`), `names` keeps whether each Software value met names an editor.
    static func isCameraOriginal(format: String?, hasCamera: Bool, captureTime: String?, taken: Double?, software: String?,
                                 modifyTime: String?, names: inout SavedByEditor.Names) -> Bool {
        guard hasCamera, let captureTime, taken != nil, let format,
              ["jpeg", "heif", "tiff"].contains(format) else { return false }
        return !SavedByEditor.says(software: software, captureTime: captureTime, modifyTime: modifyTime, names: &names)
    }

    /// Stores a scan's groups and marks it done, only if it is still the running, current scan
    /// of its library: a cancelled or superseded scan never finalizes.
    /// `digest` (`groupingDigest`) is kept with it, so that a rescan of the same input can keep
    /// these groups.
    func finalize(scan: ScanRecord, groups: [PhotoGroup], digest: String? = nil) async throws -> Bool {
        try await writer.write { db in
            guard try Self.isCurrent(db, scanID: scan.id, generation: scan.generation) else { return false }
            try db.execute(sql: "UPDATE scans SET groups_of = NULL WHERE id = ?", arguments: [scan.id])
            try db.execute(sql: "DELETE FROM group_members WHERE group_id IN (SELECT id FROM groups WHERE scan_id = ?)", arguments: [scan.id])
            try db.execute(sql: "DELETE FROM groups WHERE scan_id = ?", arguments: [scan.id])
            // Both statements prepared once, driven through SQLite's C API (`RawStatement`): a
            // million photos' scan writes about 111,000 groups and 250,000 members.
            let insertGroup = try RawStatement(db, sql: """
                INSERT INTO groups (scan_id, number, kind, keeper_photo_id, keeper_reason) VALUES (?1, ?2, ?3, ?4, ?5)
                """)
            let member = try RawStatement(db, sql: """
                INSERT INTO group_members (group_id, photo_id, distance, is_keeper, relation) VALUES (?1, ?2, ?3, ?4, ?5)
                """)
            insertGroup.bind(1, scan.id)
            for (index, group) in groups.enumerated() {
                insertGroup.bind(2, Int64(index + 1))
                insertGroup.bind(3, text: group.kind.rawValue)
                insertGroup.bind(4, group.keeper)
                insertGroup.bind(5, text: group.keeperReason.rawValue)
                try insertGroup.run()
                member.bind(1, db.lastInsertedRowID)
                for m in group.members {
                    member.bind(2, m.photoID)
                    member.bind(3, Int64(m.distance))
                    member.bind(4, m.photoID == group.keeper ? 1 : 0)
                    member.bind(5, text: m.relation.rawValue)
                    try member.run()
                }
            }
            try db.execute(sql: "UPDATE scans SET state = ?, finished_at = ?, grouping_digest = ? WHERE id = ?",
                           arguments: [ScanState.done, Date().timeIntervalSince1970, digest, scan.id])
            return true
        }
    }

    /// The groups of scan `scanID` (0: the latest finished scan), with the scan's state and
    /// root: what `cull groups` and `cull apply` read.
    func groupsReply(scanID: Int64) async throws -> Cull_V1_GroupsReply {
        let scan: ScanRecord
        if scanID == 0 {
            guard let latest = try await latestDoneScan() else {
                throw StoreError(description: "no scan has finished yet; run `cull run DIR` or `cull scan DIR --wait` first")
            }
            scan = latest
        } else {
            guard let found = try await self.scan(id: scanID) else {
                throw StoreError(description: "no scan \(scanID); `cull status` lists them")
            }
            scan = found
        }
        var reply = Cull_V1_GroupsReply()
        reply.scanID = scan.id
        reply.scanState = scan.state.rawValue
        reply.root = scan.root
        reply.groups = try await groups(scanID: scan.id)
        return reply
    }

    func groups(scanID: Int64) async throws -> [Cull_V1_Group] {
        try await writer.read { db in
            let policy = try Self.scan(db, id: scanID)?.keeperPolicy ?? KeeperPolicy()
            // A scan that kept an earlier scan's groups reads them there.
            let source = try Int64.fetchOne(db, sql: "SELECT COALESCE(groups_of, id) FROM scans WHERE id = ?", arguments: [scanID]) ?? scanID
            // Read through a cursor by column index: a rescan that keeps 35,000 groups reads
            // 100,000 of these rows, and copying each row and finding its columns by name
            // (GRDB lowercases every name looked up) was a tenth of such a rescan's time.
            let rows = try Row.fetchCursor(db, sql: """
                SELECT g.number, g.kind, g.keeper_reason, p.path, m.is_keeper, m.distance, m.relation, p.width, p.height, p.size,
                    p.capture_time, p.camera_make, p.camera_model, p.format, p.links, p.mtime_ns, p.sha256, p.software, p.modify_time
                FROM groups g JOIN group_members m ON m.group_id = g.id JOIN photos p ON p.id = m.photo_id
                WHERE g.scan_id = ? ORDER BY g.number, m.is_keeper DESC, p.path
                """, arguments: [source])
            var groups: [Cull_V1_Group] = []
            var editorNames = SavedByEditor.Names()
            while let row = try rows.next() {
                let number: Int64 = row[0]
                if groups.last?.groupID != number {
                    var group = Cull_V1_Group()
                    group.groupID = number
                    group.kind = row[1]
                    group.keeperReason = row[2] ?? ""
                    groups.append(group)
                }
                var member = Cull_V1_GroupMember()
                member.path = row[3]
                member.keeper = row[4]
                member.distance = row[5]
                member.relation = row[6] ?? (member.keeper ? MemberRelation.keeper.rawValue : "")
                member.width = row[7] ?? 0
                member.height = row[8] ?? 0
                member.fileSize = row[9]
                member.reference = policy.isReference(member.path)
                member.captureTime = row[10] ?? ""
                let make: String = row[11] ?? "", model: String = row[12] ?? ""
                member.camera = make.isEmpty && model.isEmpty ? "" : Self.cameraName(make: make, model: model)
                member.format = row[13] ?? ""
                member.cameraOriginal = Self.isCameraOriginal(format: member.format, hasCamera: !member.camera.isEmpty,
                                                              captureTime: member.captureTime.isEmpty ? nil : member.captureTime,
                                                              taken: CaptureTime.seconds(member.captureTime),
                                                              software: row[17], modifyTime: row[18], names: &editorNames)
                member.links = UInt32(clamping: (row[14] as Int64?) ?? 0)
                member.mtimeNs = row[15]
                member.sha256 = row[16] ?? Data()
                groups[groups.count - 1].members.append(member)
            }
            return groups
        }
    }

    /// "Canon EOS 80D" from make "Canon" and model "Canon EOS 80D" (most makers repeat their
    /// name in the model), "NIKON CORPORATION" + "NIKON D750" likewise; else both, or either.
    static func cameraName(make: String, model: String) -> String {
        let make = make.trimmingCharacters(in: .whitespaces), model = model.trimmingCharacters(in: .whitespaces)
        if make.isEmpty || model.isEmpty { return make + model }
        let brand = make.split(separator: " ").first.map(String.init) ?? make
        return model.lowercased().hasPrefix(brand.lowercased()) ? model : "\(make) \(model)"
    }

    /// Photos of a scan that failed, with their reasons (for `--show-failures`).
    func failures(scan: ScanRecord, limit: Int) async throws -> [(path: String, kind: String, message: String)] {
        try await writer.read { db in
            try Row.fetchAll(db, sql: Self.failuresQuery, arguments: [scan.libraryID, scan.generation, PhotoStatus.failed, limit])
                .map { ($0["path"], $0["error_kind"] ?? "", $0["error_message"] ?? "") }
        }
    }

    /// `+p.path`: sorted after the fact, so that SQLite finds the failed rows by the status index
    /// rather than walking the library's path index for its order and testing every row (0.78 s
    /// from a cold page cache at 220,000 photos with one failure, against 0.013 s; failures are
    /// few, and at most `limit` of them are kept while sorting).
    static let failuresQuery = """
        SELECT p.path, p.error_kind, p.error_message FROM photos p JOIN photo_seen s ON s.photo_id = p.id
        WHERE p.library_id = ? AND s.seen_generation = ? AND p.status = ? ORDER BY +p.path LIMIT ?
        """
}
