import Foundation
import Shared

/// Renders groups as a table for people, CSV for spreadsheets and scripts, or JSON.
enum GroupsFormatter {
    static func render(_ groups: [Cull_V1_Group], format: OutputFormat) -> String {
        switch format {
        case .csv: csv(groups)
        case .json: json(groups)
        case .table: table(groups)
        }
    }

    /// Columns exactly `group,kind,path,keeper,distance`; one row per member. `kind` is exact,
    /// near or similar (a photo that is the keeper of a duplicate group may also stand in a
    /// similar group, as that group's representative).
    static func csv(_ groups: [Cull_V1_Group]) -> String {
        var out = "group,kind,path,keeper,distance\n"
        for group in groups {
            for member in group.members {
                out += "\(group.groupID),\(group.kind),\(csvField(member.path)),\(member.keeper ? 1 : 0),\(member.distance)\n"
            }
        }
        return out
    }

    static func csvField(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    static func json(_ groups: [Cull_V1_Group]) -> String {
        struct Member: Encodable { var path: String; var keeper: Bool; var distance: UInt32; var width: UInt32; var height: UInt32; var bytes: UInt64 }
        struct Group: Encodable { var group: Int64; var kind: String; var members: [Member] }
        let value = groups.map { group in
            Group(group: group.groupID, kind: group.kind, members: group.members.map {
                Member(path: $0.path, keeper: $0.keeper, distance: $0.distance, width: $0.width, height: $0.height, bytes: $0.fileSize)
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
            for member in group.members {
                let mark = member.keeper ? (similar ? "best" : "keep") : (similar ? "shot" : "  d=\(member.distance)")
                let size = "\(member.width)x\(member.height), \(byteCount(member.fileSize))"
                out += "  \(mark.padding(toLength: 6, withPad: " ", startingAt: 0)) \(member.path)  (\(size))\n"
            }
        }
        out += summary(groups) + "\n"
        return out
    }

    /// "3 duplicate groups, 9 photos, 6 could go; 2 groups of similar shots": similar shots
    /// never count as duplicates.
    static func summary(_ groups: [Cull_V1_Group]) -> String {
        let duplicates = groups.filter { $0.kind != "similar" }
        let photos = duplicates.reduce(0) { $0 + $1.members.count }
        var line = "\(duplicates.count) duplicate groups, \(photos) photos, \(photos - duplicates.count) could go"
        let similar = groups.count - duplicates.count
        if similar > 0 { line += "; \(similar) groups of similar shots (not duplicates)" }
        return line + "."
    }

    static func byteCount(_ bytes: UInt64) -> String {
        let units = ["B", "KB", "MB", "GB", "TB"]
        var value = Double(bytes)
        var unit = 0
        while value >= 1000 && unit < units.count - 1 { value /= 1000; unit += 1 }
        return unit == 0 ? "\(bytes) B" : String(format: "%.1f %@", value, units[unit])
    }
}
