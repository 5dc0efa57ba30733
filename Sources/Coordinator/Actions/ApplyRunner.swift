import Foundation

/// What `cull apply` did (or, dry, would do).
struct ApplyOutcome: Sendable {
    /// Files moved (or that would move), sidecars included.
    var moved: [PlannedMove] = []
    /// Photos left where they are because they changed since they were analysed.
    var refused: [(path: String, reason: String)] = []
    /// Photos that could not be moved (permission denied, the target full, …).
    var failed: [(path: String, reason: String)] = []
    /// Photos an interrupted apply of the same manifest had moved already.
    var alreadyMoved = 0
    /// Photos no longer in the library (deleted or moved by hand since the scan).
    var missing: [String] = []
    /// The target ran out of space: the apply stopped there.
    var stoppedFull = false
    var manifest: String?

    var bytesFreed: Int64 { moved.filter { $0.links <= 1 }.reduce(0) { $0 + $1.size } }
    var photosMoved: Int { moved.filter { $0.sidecarOf == nil }.count }
}

/// Carries out a `MovePlan`: each photo checked against what the analysis saw (size, time and
/// SHA-256), its sidecars found, a manifest entry written and flushed before each move
/// (write-ahead), then the move (`FileMover`). An unfinished manifest for the same library in
/// the target is continued: running `cull apply` again after a crash goes on where it stopped.
/// Blocking throughout: run it on a thread of its own.
struct ApplyRunner: Sendable {
    let plan: MovePlan
    let scanID: Int64
    /// Progress and per-file messages, for standard error.
    var report: @Sendable (String) -> Void = { _ in }
    var faults = ActionFaults()

    enum Check {
        case ready(sha256: [UInt8])
        case alreadyMoved
        case missing
        case changed(String)
    }

    /// Whether `move` may go: still the file the analysis saw.
    func check(_ move: PlannedMove) throws(ActionError) -> Check {
        guard let info = FileMover.status(move.from) else {
            if let there = FileMover.status(move.to), Int64(there.st_size) == move.size { return .alreadyMoved }
            return .missing
        }
        guard info.st_mode & S_IFMT == S_IFREG else { return .changed("no longer a regular file") }
        guard Int64(info.st_size) == move.size, FileMover.mtime(info) == move.mtimeNs else {
            return .changed("changed since it was analysed (its size or modification time differ): scan again first")
        }
        let sha = try FileMover.sha256(of: move.from)
        guard move.sha256.isEmpty || sha == move.sha256 else {
            return .changed("its bytes changed since it was analysed: scan again first")
        }
        return .ready(sha256: sha)
    }

    /// What would move, checked as a real apply checks, moving nothing.
    func dryRun() -> ApplyOutcome {
        var outcome = ApplyOutcome()
        let moving = Set(plan.moves.map(\.from))
        var sidecarsPlanned = Set<String>()
        for move in plan.moves {
            do {
                switch try check(move) {
                case .ready:
                    outcome.moved.append(move)
                    outcome.moved += sidecars(of: move, moving: moving, planned: &sidecarsPlanned)
                case .alreadyMoved: outcome.alreadyMoved += 1
                case .missing: outcome.missing.append(move.from)
                case .changed(let reason): outcome.refused.append((move.from, reason))
                }
            } catch {
                outcome.failed.append((move.from, error.description))
            }
        }
        return outcome
    }

    /// Moves the plan's photos, writing the manifest ahead of every move. Throws only when no
    /// manifest can be written (nothing has moved then).
    func run() throws(ActionError) -> ApplyOutcome {
        var outcome = ApplyOutcome()
        try FileMover.makeFolders(for: plan.target + "/x")
        let manifestPath: String
        let unfinished = ManifestReader.unfinished(in: plan.target, library: plan.library)
        if let unfinished {
            manifestPath = unfinished
            report("continuing the interrupted apply recorded in \(unfinished)")
            try settleInterrupted(ManifestReader.entries(at: unfinished))
        } else {
            manifestPath = ManifestReader.newPath(in: plan.target)
        }
        outcome.manifest = manifestPath
        let manifest = try ManifestWriter(path: manifestPath)
        if unfinished == nil {
            try manifest.append(ManifestEntry(op: .apply, version: ManifestEntry.version, scan: scanID, library: plan.library,
                                              target: plan.target, at: ISO8601DateFormatter().string(from: Date())))
        }
        let moving = Set(plan.moves.map(\.from))
        var sidecarsPlanned = Set<String>()
        var lastReport = ContinuousClock.now
        for (index, move) in plan.moves.enumerated() {
            if ContinuousClock.now - lastReport >= .seconds(2) {
                report("moved \(outcome.photosMoved) of \(plan.moves.count) photos")
                lastReport = .now
            }
            let sha: [UInt8]
            do {
                switch try check(move) {
                case .ready(let digest): sha = digest
                case .alreadyMoved: outcome.alreadyMoved += 1; continue
                case .missing: outcome.missing.append(move.from); continue
                case .changed(let reason): outcome.refused.append((move.from, reason)); continue
                }
            } catch {
                outcome.failed.append((move.from, error.description))
                continue
            }
            let companions = sidecars(of: move, moving: moving, planned: &sidecarsPlanned)
            do {
                try manifest.append(.move(move, sha256: sha))
                try FileMover.move(from: move.from, to: move.to, sha256: sha, faults: faults)
                outcome.moved.append(move)
                for sidecar in companions {
                    let digest = try FileMover.sha256(of: sidecar.from)
                    try manifest.append(.move(sidecar, sha256: digest))
                    try FileMover.move(from: sidecar.from, to: sidecar.to, sha256: digest, faults: faults)
                    outcome.moved.append(sidecar)
                }
                faults.pause(faults.moveDelay)
            } catch {
                outcome.failed.append((move.from, error.description))
                if error.full {
                    outcome.stoppedFull = true
                    for rest in plan.moves[(index + 1)...] { outcome.failed.append((rest.from, "not moved: the target is full")) }
                    return outcome  // no `complete` line: running apply again continues
                }
            }
        }
        try manifest.append(ManifestEntry(op: .complete, moved: outcome.moved.count, bytes: outcome.bytesFreed))
        return outcome
    }

    /// The sidecars that move with `move`'s photo, each once.
    private func sidecars(of move: PlannedMove, moving: Set<String>, planned: inout Set<String>) -> [PlannedMove] {
        FileMover.sidecars(of: move.from, moving: moving).compactMap { path in
            guard planned.insert(path).inserted, let info = FileMover.status(path) else { return nil }
            return PlannedMove(from: path, to: MovePlan.destination(of: path, library: plan.library, target: plan.target),
                               size: Int64(info.st_size), mtimeNs: FileMover.mtime(info), sha256: [], group: move.group,
                               sidecarOf: move.from, links: Int64(info.st_nlink))
        }
    }

    /// Finishes or rolls back the move an interrupted apply was in the middle of: a copy
    /// across file systems that reached its place but whose original was not yet removed is
    /// finished (the copy was verified before it took its name); a temporary copy is removed.
    private func settleInterrupted(_ entries: [ManifestEntry]) throws(ActionError) {
        for entry in entries where entry.op == .move {
            guard let from = entry.from, let to = entry.to else { continue }
            unlink(FileMover.partialName(to))
            if FileMover.status(from) != nil, FileMover.status(to) != nil, let sha = entry.sha256,
               FileMover.hex(try FileMover.sha256(of: to)) == sha, FileMover.hex(try FileMover.sha256(of: from)) == sha {
                guard unlink(from) == 0 else { throw ActionError.system("cannot finish moving \(from)", errno) }
                FileMover.syncFolder(of: from)
            }
        }
    }
}
