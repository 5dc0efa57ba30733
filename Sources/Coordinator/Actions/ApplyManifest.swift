import Foundation

/// One line of an apply manifest (`DIR/cull-manifest-<UTC time>.jsonl`): JSON, one object a
/// line, written ahead of what it records and fsynced, so that `cull undo` can put everything
/// back after an apply that was killed at any point (docs/FEATURES.md, "Acting on groups").
struct ManifestEntry: Codable, Equatable, Sendable {
    enum Operation: String, Codable, Sendable {
        /// The first line: which scan's groups, which library, which target.
        case apply
        /// Written before a file is moved: where from, where to, and what it was.
        case move
        /// The last line of an apply that went through its whole plan.
        case complete
        /// Appended by `cull undo` once everything is back.
        case undone
    }

    var op: Operation
    var version: Int?
    var scan: Int64?
    var library: String?
    var target: String?
    var at: String?
    var from: String?
    var to: String?
    var size: Int64?
    var mtimeNs: Int64?
    var sha256: String?
    var group: Int64?
    /// For a sidecar (.xmp, .aae, .json): the photo it belongs to.
    var sidecarOf: String?
    var moved: Int?
    var bytes: Int64?

    enum CodingKeys: String, CodingKey {
        case op, version, scan, library, target, at, from, to, size, sha256, group, moved, bytes
        case mtimeNs = "mtime_ns", sidecarOf = "sidecar_of"
    }

    static let version = 1

    static func move(_ move: PlannedMove, sha256: [UInt8]) -> ManifestEntry {
        ManifestEntry(op: .move, from: move.from, to: move.to, size: move.size, mtimeNs: move.mtimeNs,
                      sha256: FileMover.hex(sha256), group: move.group, sidecarOf: move.sidecarOf)
    }
}

/// Appends entries to a manifest, each fsynced before `append` returns (write-ahead).
final class ManifestWriter {
    let path: String
    private let descriptor: Int32

    /// Opens `path` for appending, creating it (and making its folder entry durable) if new.
    init(path: String) throws(ActionError) {
        self.path = path
        let existed = access(path, F_OK) == 0
        descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw ActionError.system("cannot write the manifest \(path)", errno) }
        if !existed { FileMover.syncFolder(of: path) }
    }

    deinit { close(descriptor) }

    func append(_ entry: ManifestEntry) throws(ActionError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let json = try? encoder.encode(entry) else { throw ActionError("cannot encode a manifest entry") }
        let line = Array(json) + [UInt8(ascii: "\n")]
        let written = line.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written == line.count else { throw ActionError.system("cannot write the manifest \(path)", errno) }
        guard fsync(descriptor) == 0 else { throw ActionError.system("cannot flush the manifest \(path) to disk", errno) }
    }
}

/// Reads a manifest back.
enum ManifestReader {
    /// Every entry. A last line cut short (the apply was killed while writing it, so its move
    /// never started) is left out; a bad line elsewhere means the file is not a manifest.
    static func entries(at path: String) throws(ActionError) -> [ManifestEntry] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ActionError("cannot read \(path): \(String(cString: strerror(errno)))")
        }
        let lines = data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true)
        var entries: [ManifestEntry] = []
        for (index, line) in lines.enumerated() {
            guard let entry = try? JSONDecoder().decode(ManifestEntry.self, from: Data(line)) else {
                if index == lines.count - 1 && index > 0 { break }
                throw ActionError("\(path), line \(index + 1): not a cull manifest entry; give the manifest `cull apply` printed")
            }
            entries.append(entry)
        }
        guard entries.first?.op == .apply, entries.first?.version == ManifestEntry.version else {
            throw ActionError("\(path) is not a cull manifest of version \(ManifestEntry.version)")
        }
        return entries
    }

    /// A manifest in `target` for `library` whose apply did not finish (killed, or stopped by
    /// an error) and was not undone: `cull apply` continues it rather than start another.
    static func unfinished(in target: String, library: String) -> String? {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: target) else { return nil }
        for name in names.sorted().reversed() where name.hasPrefix("cull-manifest-") && name.hasSuffix(".jsonl") {
            let path = target + "/" + name
            guard let entries = try? entries(at: path), entries.first?.library == library else { continue }
            if let last = entries.last?.op, last != .complete, last != .undone { return path }
        }
        return nil
    }

    /// `target/cull-manifest-20261123T101500Z.jsonl` for now; `-2`, `-3` … after the time
    /// when an apply in the same second wrote one already.
    static func newPath(in target: String, now: Date = Date()) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        let stem = "\(target)/cull-manifest-\(formatter.string(from: now))"
        var path = stem + ".jsonl", number = 1
        while access(path, F_OK) == 0 {
            number += 1
            path = "\(stem)-\(number).jsonl"
        }
        return path
    }
}

/// A failure of `cull apply` or `cull undo`, said plainly; `full` marks a target out of space
/// (nothing more can move there).
struct ActionError: Error, CustomStringConvertible {
    let description: String
    var full = false

    init(_ description: String, full: Bool = false) {
        self.description = description
        self.full = full
    }

    static func system(_ what: String, _ code: Int32) -> ActionError {
        ActionError("\(what): \(String(cString: strerror(code)))", full: code == ENOSPC || code == EDQUOT)
    }
}
