import Foundation

/// What `cull undo` did.
struct UndoOutcome: Sendable {
    var restored: [String] = []
    /// Moves the manifest announced that never happened (the apply stopped before them).
    var neverMoved = 0
    /// Files back in place already (an earlier undo, or by hand); the copy in the target, if
    /// any, is left there.
    var alreadyBack: [String] = []
    var failed: [(path: String, reason: String)] = []
}

/// Puts back everything an apply's manifest says it moved, newest first: also after an apply
/// that was killed or failed midway (the manifest is written ahead of every move, so every
/// moved file is in it). Safe to run again: each entry is checked against what is on disk.
/// Nothing is overwritten; a file moves back only if it is still what was moved (SHA-256).
/// Blocking throughout: run it on a thread of its own.
struct UndoRunner: Sendable {
    let manifestPath: String
    var report: @Sendable (String) -> Void = { _ in }

    func run() throws(ActionError) -> UndoOutcome {
        let entries = try ManifestReader.entries(at: manifestPath)
        var outcome = UndoOutcome()
        var done = Set<String>()
        var lastReport = ContinuousClock.now
        for entry in entries.reversed() where entry.op == .move {
            guard let from = entry.from, let to = entry.to, let sha = entry.sha256 else { continue }
            guard done.insert(from).inserted else { continue }  // an entry an interrupted apply wrote twice
            if ContinuousClock.now - lastReport >= .seconds(2) {
                report("put back \(outcome.restored.count) files")
                lastReport = .now
            }
            unlink(FileMover.partialName(to))  // a copy across file systems cut short: this program's own
            let there = FileMover.status(to) != nil, back = FileMover.status(from) != nil
            switch (there, back) {
            case (false, true):
                outcome.neverMoved += 1
            case (false, false):
                outcome.failed.append((from, "not in \(to) nor back in place: it was moved or deleted outside cull"))
            case (true, true):
                outcome.alreadyBack.append(from)
            case (true, false):
                do {
                    let digest = try FileMover.sha256(of: to)
                    guard FileMover.hex(digest) == sha else {
                        outcome.failed.append((from, "\(to) changed since it was moved there: left in place"))
                        continue
                    }
                    try FileMover.move(from: to, to: from, sha256: digest)
                    outcome.restored.append(from)
                } catch {
                    outcome.failed.append((from, error.description))
                }
            }
        }
        if outcome.failed.isEmpty {
            try ManifestWriter(path: manifestPath).append(ManifestEntry(op: .undone, at: ISO8601DateFormatter().string(from: Date())))
        }
        return outcome
    }
}
