import Analysis
import Dispatch
import Foundation
import Shared
import Synchronization

/// `--format html`: one self-contained page to review groups in any browser, no server: each
/// group's photos side by side as small thumbnails rendered from the files (embedded as data
/// URLs), with pixel size, file size, capture time, camera, the keeper marked and why, and each
/// copy's relation. The CLI renders the thumbnails, so it must see the library at the paths the
/// scan recorded (a photo it cannot read gets a placeholder saying so).
enum HTMLReport {
    /// Groups shown in one page: past this the page says how many were left out (a page of
    /// thousands of groups is no review, and its thumbnails would weigh hundreds of MB).
    static let maxGroups = 2_000
    /// Thumbnails' long side, pixels.
    static let thumbnailSide = 200

    /// The page for `groups` of the library at `root`; `summary` is the listing's last line.
    /// Reads and decodes the members' files on threads of their own (both cores).
    static func render(_ groups: [Cull_V1_Group], root: String, scanID: Int64, summary: String) async throws -> String {
        let shown = Array(groups.prefix(maxGroups))
        let paths = Array(Set(shown.flatMap { $0.members.map(\.path) })).sorted()
        let thumbnails = try await onOwnThread { Self.thumbnails(paths) }
        return page(shown, total: groups.count, root: root, scanID: scanID, summary: summary, thumbnails: thumbnails)
    }

    /// Each path's thumbnail as base64 JPEG, or why there is none.
    static func thumbnails(_ paths: [String]) -> [String: Result<String, AnalysisFailure>] {
        let results = Mutex([String: Result<String, AnalysisFailure>]())
        DispatchQueue.concurrentPerform(iterations: paths.count) { index in
            let path = paths[index]
            let outcome: Result<String, AnalysisFailure>
            // The size is checked before reading: a huge file is never read whole (rule 5).
            var info = stat()
            let fits = stat(path, &info) == 0 && info.st_size <= 256 << 20
            if fits, let data = FileManager.default.contents(atPath: path) {
                outcome = Result { () throws(AnalysisFailure) -> String in
                    Data(try ReviewThumbnail.make([UInt8](data), path: path, side: thumbnailSide)).base64EncodedString()
                }
            } else {
                outcome = .failure(AnalysisFailure(fits ? .unreadable : .tooLarge, fits ? "\(path): cannot be read here" : "\(path): over 256 MB, not shown"))
            }
            results.withLock { $0[path] = outcome }
        }
        return results.withLock { $0 }
    }

    static func page(_ groups: [Cull_V1_Group], total: Int, root: String, scanID: Int64, summary: String,
                     thumbnails: [String: Result<String, AnalysisFailure>]) -> String {
        var html = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>cull review: \(escape(root))</title>
            <style>\(style)</style></head>
            <body><header><h1>cull review</h1><p>Scan \(scanID) of <code>\(escape(root))</code>: \(escape(summary))</p>
            """
        if total > groups.count {
            html += "<p class=\"note\">Showing the first \(groups.count) of \(total) groups; `cull groups --format csv` lists them all.</p>"
        }
        html += "</header>\n"
        if groups.isEmpty { html += "<p>No duplicate groups.</p>\n" }
        for group in groups {
            let similar = group.kind == "similar"
            html += "<section class=\"group \(escape(group.kind))\"><h2>Group \(group.groupID) <span class=\"kind\">\(similar ? "similar shots" : escape(group.kind))</span> \(group.members.count) photos</h2>\n"
            let reason = KeeperExplanation.reason(group), others = KeeperExplanation.others(group)
            if !reason.isEmpty {
                html += "<p class=\"reason\">\(similar ? "best" : "keep"): \(escape(reason))\(others.isEmpty ? "" : "; " + escape(others))</p>\n"
            }
            html += "<div class=\"members\">\n"
            for member in group.members {
                html += card(member, similar: similar, root: root, thumbnail: thumbnails[member.path])
            }
            html += "</div></section>\n"
        }
        return html + "</body></html>\n"
    }

    private static func card(_ member: Cull_V1_GroupMember, similar: Bool, root: String, thumbnail: Result<String, AnalysisFailure>?) -> String {
        let badge = member.keeper ? (similar ? "best" : "keep") : member.reference ? "reference: kept" : (similar ? "shot" : member.relation)
        let classes = member.keeper ? "member keeper" : member.reference ? "member reference" : "member"
        var out = "<figure class=\"\(classes)\">"
        switch thumbnail {
        case .success(let base64)?:
            out += "<img src=\"data:image/jpeg;base64,\(base64)\" alt=\"\(escape(member.path))\">"
        case .failure(let failure)?:
            out += "<div class=\"missing\">\(escape(failure.message))</div>"
        case nil:
            out += "<div class=\"missing\">not shown</div>"
        }
        let relative = member.path.hasPrefix(root + "/") ? String(member.path.dropFirst(root.count + 1)) : member.path
        out += "<figcaption><span class=\"badge\">\(escape(badge))</span> <span class=\"path\">\(escape(relative))</span><br>"
        out += "\(member.width)×\(member.height) · \(GroupsFormatter.byteCount(member.fileSize))"
        if !member.keeper && !similar { out += " · d=\(member.distance)" }
        if !member.captureTime.isEmpty { out += "<br>\(escape(KeeperExplanation.captureTime(member.captureTime)))" }
        if !member.camera.isEmpty { out += "<br>\(escape(member.camera))" }
        return out + "</figcaption></figure>\n"
    }

    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }

    private static let style = """
        body{font:14px/1.4 system-ui,sans-serif;margin:0;background:#f4f4f2;color:#222}
        header{padding:16px 24px;background:#fff;border-bottom:1px solid #ddd}h1{margin:0 0 4px;font-size:20px}
        .note{color:#a60}.group{margin:16px 24px;padding:12px 16px;background:#fff;border:1px solid #ddd;border-radius:6px}
        h2{font-size:16px;margin:0 0 6px}.kind{font-weight:normal;color:#555;margin:0 8px}.reason{margin:0 0 10px;color:#333}
        .members{display:flex;flex-wrap:wrap;gap:12px}.member{margin:0;width:220px;padding:8px;border:2px solid #ddd;border-radius:6px}
        .member img{display:block;max-width:200px;max-height:200px;margin:0 auto 6px}.keeper{border-color:#2a8a3a}
        .reference{border-color:#2a5a9a}.badge{display:inline-block;padding:0 6px;border-radius:3px;background:#eee;font-weight:600}
        .keeper .badge{background:#2a8a3a;color:#fff}.path{word-break:break-all}
        .missing{width:200px;height:120px;display:flex;align-items:center;justify-content:center;background:#eee;color:#777;font-size:12px;text-align:center}
        .similar{border-style:dashed}
        """
}
