import ArgumentParser
import Foundation
import Shared

struct ApplyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apply",
        abstract: "Moves the copies a scan found out of the library, with a manifest that undoes it.",
        discussion: """
            Moves the non-keepers of the scan's exact and near groups (with --include-similar, of \
            its similar groups too) into --move-to DIR, at the same paths below DIR as below the \
            library, with their sidecars (.xmp, .aae, .json). Keepers, photos in reference \
            folders, second paths of one file and both halves of a camera's RAW + JPEG pair \
            (unless --pairs names the half to keep) never move; a photo that changed since it was \
            analysed is left where it is and reported. Before each move a line is written and \
            flushed to DIR/cull-manifest-<UTC time>.jsonl, whose path is printed last: \
            `cull undo MANIFEST` puts everything back, also after an apply that was killed; \
            running apply again continues an interrupted one. Nothing is ever deleted or \
            overwritten. Reads the groups from --db (cull run's results), or from the daemon \
            with --control.
            """
    )

    @Option(name: .customLong("move-to"), help: ArgumentHelp("The folder the copies go to (outside the library; created if missing).", valueName: "dir"))
    var moveTo: String

    @Flag(help: "Print exactly what would move and the bytes it frees; move nothing.")
    var dryRun = false

    @Option(help: "The scan whose groups to act on (default: the latest finished one).")
    var scan: Int64 = 0

    @Flag(help: "Also move the other shots of similar groups (bursts, brackets), keeping each group's best.")
    var includeSimilar = false

    @OptionGroup var pairsOptions: PairsOptions
    @OptionGroup var source: ResultsSourceOptions

    func run() async throws {
        try await reportingErrors {
            let reply = try await groups()
            let plan = try MovePlan(reply, target: absolutePath(moveTo), includeSimilar: includeSimilar)
            let faults = ActionFaults(environment: ProcessInfo.processInfo.environment)
            if faults.isActive { printError("\(ActionFaults.variable) is set: this apply is slowed for a test") }
            let runner = ApplyRunner(plan: plan, scanID: reply.scanID, report: { printError($0) }, faults: faults)
            let dry = dryRun
            let outcome = try await onOwnThread { dry ? runner.dryRun() : try runner.run() }
            report(outcome, plan: plan)
            if !outcome.refused.isEmpty || !outcome.failed.isEmpty || !outcome.missing.isEmpty { throw ExitCode.failure }
        }
    }

    private func groups() async throws -> Cull_V1_GroupsReply {
        guard case .groupsReply(var reply) = try await source.answer(.groupsRequest(.with { $0.scanID = scan })) else {
            throw CLIError.unexpectedAnswer
        }
        reply.groups = pairsOptions.pairs.applied(to: reply.groups)
        return reply
    }

    private func report(_ outcome: ApplyOutcome, plan: MovePlan) {
        let sidecars = outcome.moved.count - outcome.photosMoved
        let files = "\(outcome.photosMoved) photos" + (sidecars > 0 ? " and \(sidecars) sidecars" : "")
        if dryRun {
            var out = ""
            for move in outcome.moved {
                out += move.sidecarOf == nil ? "move \(move.from) -> \(move.to) (\(GroupsFormatter.byteCount(UInt64(move.size))))\n"
                                             : "  with \(move.from) -> \(move.to)\n"
            }
            out += "would move \(files) from \(plan.library) to \(plan.target), freeing \(GroupsFormatter.byteCount(UInt64(outcome.bytesFreed))) (dry run: nothing moved)\n"
            FileHandle.standardOutput.write(Data(out.utf8))
        }
        for (path, reason) in outcome.refused { printError("left \(path): \(reason)") }
        for path in outcome.missing { printError("not found \(path): deleted or moved since the scan; scan again") }
        for (path, reason) in outcome.failed { printError("could not move \(path): \(reason)") }
        if outcome.alreadyMoved > 0 { printError("\(outcome.alreadyMoved) photos had been moved by the interrupted apply already") }
        guard !dryRun, let manifest = outcome.manifest else { return }
        if outcome.stoppedFull {
            printError("stopped: \(plan.target) is full. Moved \(files); free space there and run the same apply again to go on, or `cull undo \(manifest)` to put them back")
        } else {
            printError("moved \(files) to \(plan.target), freeing \(GroupsFormatter.byteCount(UInt64(outcome.bytesFreed))); `cull undo \(manifest)` puts them back")
        }
        print(manifest)
    }
}

struct UndoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "undo",
        abstract: "Puts back everything a `cull apply` moved, from its manifest (also after an apply that was killed).")

    @Argument(help: "The manifest `cull apply` printed (DIR/cull-manifest-<UTC time>.jsonl).")
    var manifest: String

    func run() async throws {
        try await reportingErrors {
            let runner = UndoRunner(manifestPath: absolutePath(manifest), report: { printError($0) })
            let outcome = try await onOwnThread { try runner.run() }
            for (path, reason) in outcome.failed { printError("could not put back \(path): \(reason)") }
            var line = "put back \(outcome.restored.count) files"
            if !outcome.alreadyBack.isEmpty { line += "; \(outcome.alreadyBack.count) were back in place already" }
            if outcome.neverMoved > 0 { line += "; \(outcome.neverMoved) had not been moved (the apply stopped before them)" }
            printError(line)
            if !outcome.failed.isEmpty { throw ExitCode.failure }
        }
    }
}
