import Foundation
import Shared

/// Renders groups as a table for people, CSV for spreadsheets and scripts, JSON, or an HTML
/// page to review them in a browser (`HTMLReport`).
enum GroupsFormatter {
    /// The listing in `format`; for HTML with the photos' thumbnails, rendered from the files.
    static func output(_ groups: [Cull_V1_Group], format: OutputFormat, root: String, scanID: Int64) async throws -> String {
        guard format == .html else { return render(groups, format: format) }
        return try await HTMLReport.render(groups, root: root, scanID: scanID, summary: summary(groups))
    }

    /// The listing in `format`; HTML without thumbnails (`output` renders them).
    static func render(_ groups: [Cull_V1_Group], format: OutputFormat) -> String {
        switch format {
        case .csv: csv(groups)
        case .json: json(groups)
        case .table: table(groups)
        case .html: HTMLReport.page(groups, total: groups.count, root: "", scanID: 0, summary: summary(groups), thumbnails: [:])
        }
    }

    /// The columns `group,kind,path,keeper,distance` first, as they always were; then
    /// `relation,reference,width,height,bytes,capture_time,camera,keeper_reason` (the reason on
    /// the keeper's row). One row per member. `kind` is exact, near or similar (a photo that is
    /// the keeper of a duplicate group may also stand in a similar group, as its representative).
    static func csv(_ groups: [Cull_V1_Group]) -> String {
        // Appended field by field into one string: a rescan's listing can hold a hundred
        // thousand rows, and joining an array of fields per row, each scanned by Character to
        // decide its quoting, cost 0.18 s of a 1.45 s rescan (bench/RESULTS.md, "Rescans").
        var out = "group,kind,path,keeper,distance,relation,reference,width,height,bytes,capture_time,camera,keeper_reason\n"
        out.reserveCapacity(groups.reduce(out.utf8.count) { $0 + $1.members.count * 96 })
        for group in groups {
            let number = String(group.groupID), kind = csvField(group.kind)
            for member in group.members {
                out += number; out += ","; out += kind; out += ","; out += csvField(member.path)
                out += member.keeper ? ",1," : ",0,"; out += String(member.distance); out += ","
                out += csvField(member.relation); out += member.reference ? ",1," : ",0,"
                out += String(member.width); out += ","; out += String(member.height); out += ","; out += String(member.fileSize); out += ","
                out += csvField(member.captureTime); out += ","; out += csvField(member.camera); out += ","
                out += member.keeper ? csvField(group.keeperReason) : ""
                out += "\n"
            }
        }
        return out
    }

    /// `text` quoted when it holds a comma, a quote or a line break (RFC 4180). Checked on the
    /// UTF-8 bytes: those four are ASCII, which no byte of a multi-byte character can be.
    static func csvField(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\n") || $0 == UInt8(ascii: "\r") })
        else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    static func json(_ groups: [Cull_V1_Group]) -> String {
        struct Member: Encodable {
            var path: String; var keeper: Bool; var distance: UInt32; var width: UInt32; var height: UInt32; var bytes: UInt64
            var relation: String; var reference: Bool; var captureTime: String?; var camera: String?; var format: String; var cameraOriginal: Bool
            enum CodingKeys: String, CodingKey {
                case path, keeper, distance, width, height, bytes, relation, reference, format
                case captureTime = "capture_time", camera, cameraOriginal = "camera_original"
            }
        }
        struct Group: Encodable {
            var group: Int64; var kind: String; var keeperReason: String; var keeperReasonText: String; var members: [Member]
            enum CodingKeys: String, CodingKey { case group, kind, members, keeperReason = "keeper_reason", keeperReasonText = "keeper_reason_text" }
        }
        let value = groups.map { group in
            Group(group: group.groupID, kind: group.kind, keeperReason: group.keeperReason, keeperReasonText: KeeperExplanation.reason(group),
                  members: group.members.map {
                Member(path: $0.path, keeper: $0.keeper, distance: $0.distance, width: $0.width, height: $0.height, bytes: $0.fileSize,
                       relation: $0.relation, reference: $0.reference, captureTime: $0.captureTime.isEmpty ? nil : $0.captureTime,
                       camera: $0.camera.isEmpty ? nil : $0.camera, format: $0.format, cameraOriginal: $0.cameraOriginal)
            })
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: (try? encoder.encode(value)) ?? Data("[]".utf8), as: UTF8.self) + "\n"
    }

    static func table(_ groups: [Cull_V1_Group]) -> String {
        guard !groups.isEmpty else { return "No duplicate groups.\n" }
        var out = ""
        for group in groups {
            let similar = group.kind == "similar"
            out += similar ? "Group \(group.groupID): similar shots, \(group.members.count) photos (different shots of one moment: keep any)\n"
                           : "Group \(group.groupID): \(group.kind), \(group.members.count) photos\n"
            let reason = KeeperExplanation.reason(group), others = KeeperExplanation.others(group)
            if !reason.isEmpty { out += "  \(similar ? "best" : "keep"): \(reason)\(others.isEmpty ? "" : "; \(others)")\n" }
            for member in group.members {
                let mark = member.keeper ? (similar ? "best" : "keep") : member.reference ? "ref" : (similar ? "shot" : "  d=\(member.distance)")
                var details = "\(member.width)x\(member.height), \(byteCount(member.fileSize))"
                if !member.keeper && !member.relation.isEmpty && !similar { details = "\(member.relation), " + details }
                if member.reference { details += ", reference folder: kept" }
                out += "  \(mark.padding(toLength: 6, withPad: " ", startingAt: 0)) \(member.path)  (\(details))\n"
            }
        }
        out += summary(groups) + "\n"
        return out
    }

    /// "3 duplicate groups, 9 photos, 5 could go (12.3 MB); 2 groups of similar shots (not
    /// duplicates)". A file reached by two paths counts once. Only non-keepers of exact and
    /// near groups outside reference folders could go, and the bytes are those moving them
    /// would free: not of a file with other hard links. Similar shots are never counted.
    static func summary(_ groups: [Cull_V1_Group]) -> String {
        // Counted in place: a listing can hold a hundred thousand members.
        var duplicates = 0, photos = 0, removable = 0, bytes: UInt64 = 0
        for group in groups where group.kind != "similar" {
            duplicates += 1
            for member in group.members {
                if member.relation != "same file" { photos += 1 }
                guard couldGo(member) else { continue }
                removable += 1
                if member.links <= 1 { bytes += member.fileSize }
            }
        }
        var line = "\(duplicates) duplicate groups, \(photos) photos, \(removable) could go (\(byteCount(bytes)))"
        let similar = groups.count - duplicates
        if similar > 0 { line += "; \(similar) groups of similar shots (not duplicates)" }
        return line + "."
    }

    /// A member `cull apply` would move: not the keeper, not in a reference folder, not
    /// another path of a file listed before it, not the kept half of a RAW + JPEG pair, and in
    /// a group of duplicates.
    static func couldGo(_ member: Cull_V1_GroupMember) -> Bool {
        !member.keeper && !member.reference && !MemberRelation.neverMoving.contains(member.relation) && member.relation != "similar shot"
    }

    static func byteCount(_ bytes: UInt64) -> String {
        let units = ["B", "KB", "MB", "GB", "TB"]
        var value = Double(bytes)
        var unit = 0
        while value >= 1000 && unit < units.count - 1 { value /= 1000; unit += 1 }
        return unit == 0 ? "\(bytes) B" : String(format: "%.1f %@", value, units[unit])
    }
}
