import Foundation
import Shared

/// Answers to the control channel's requests (`cull scan|status|cancel|groups|workers`).
extension Coordinator {
    func answer(_ command: Cull_V1_Envelope.OneOf_Command) async -> Cull_V1_Envelope.OneOf_Command {
        do {
            switch command {
            case .scanRequest(let request):
                let filter = WalkFilter(include: request.include, exclude: request.exclude, defaultSkips: !request.noDefaultSkips)
                let (scan, superseded) = try await startScan(root: request.root, prefer: request.prefer, referenceFolders: request.referenceFolders,
                                                             walkFilter: filter)
                var started = Cull_V1_ScanStarted()
                started.scanID = scan.id
                started.generation = scan.generation
                started.supersededScanIds = superseded
                return .scanStarted(started)
            case .statusRequest(let request):
                return .statusReply(try await status(scanID: request.scanID, limit: Int(request.limit == 0 ? 20 : min(request.limit, 1000))))
            case .cancelRequest(let request):
                guard let outcome = try await cancelScan(id: request.scanID) else {
                    return controlError("no scan \(request.scanID); `cull status` lists them")
                }
                var reply = Cull_V1_CancelReply()
                reply.cancelled = outcome.cancelledNow
                reply.state = outcome.state.rawValue
                return .cancelReply(reply)
            case .groupsRequest(let request):
                return .groupsReply(try await groupsReply(scanID: request.scanID))
            case .photosRequest(let request):
                return .photosReply(try await store.photosPage(request))
            default:
                return controlError("\(command.name) is not a control command")
            }
        } catch {
            return controlError(describe(error))
        }
    }

    private func controlError(_ message: String) -> Cull_V1_Envelope.OneOf_Command {
        var error = Cull_V1_ControlError()
        error.message = message
        return .controlError(error)
    }

    func status(scanID: Int64, limit: Int) async throws -> Cull_V1_StatusReply {
        var reply = Cull_V1_StatusReply()
        let scans: [ScanRecord]
        if scanID != 0 {
            guard let scan = try await store.scan(id: scanID) else {
                throw CoordinatorError(description: "no scan \(scanID); `cull status` lists them")
            }
            scans = [scan]
        } else {
            scans = try await store.scans(limit: limit)
        }
        reply.scans = scans.map { scan in
            var status = Cull_V1_ScanStatus(scan)
            if scan.phase == .grouping, let grouping = groupingBoard.snapshot(scanID: scan.id) {
                status.groupingStep = grouping.step.name
                status.groupingDone = Int64(grouping.done)
                status.groupingTotal = Int64(grouping.total)
            }
            return status
        }
        let now = clock.now
        reply.workers = scheduler.workers().map { worker in
            var status = Cull_V1_WorkerStatus()
            status.workerID = worker.hello.workerID
            status.host = worker.hello.host
            status.keyName = worker.keyName ?? ""
            status.softwareVersion = worker.hello.softwareVersion
            status.capacity = worker.hello.capacity
            status.inFlightJobs = UInt32(worker.jobs.count)
            status.inFlightPhotos = worker.load.inFlightPhotos
            status.abandonedFetches = worker.load.abandonedFetches
            let silent = now - worker.lastHeard
            status.lastSeenSecondsAgo = Double(silent.components.seconds) + Double(silent.components.attoseconds) / 1e18
            status.photosDone = worker.photosDone
            let connected = now - worker.joined
            let seconds = Double(connected.components.seconds) + Double(connected.components.attoseconds) / 1e18
            status.photosPerSecond = seconds >= 1 ? Double(worker.photosDone) / seconds : 0
            status.credit = UInt32(clamping: worker.credit(at: now))
            status.missedDeadlines = UInt32(clamping: worker.missedDeadlines)
            if let until = worker.quarantinedUntil, until > now {
                let left = until - now
                status.quarantineSeconds = Double(left.components.seconds) + Double(left.components.attoseconds) / 1e18
            }
            return status
        }
        reply.counters = scheduler.counters
        return reply
    }

    func groupsReply(scanID: Int64) async throws -> Cull_V1_GroupsReply {
        try await store.groupsReply(scanID: scanID)
    }
}

extension Cull_V1_ScanStatus {
    init(_ scan: ScanRecord) {
        self.init()
        scanID = scan.id
        root = scan.root
        generation = scan.generation
        state = scan.state.rawValue
        total = scan.total
        done = scan.done
        failed = scan.failed
        groups = scan.groups
        startedAt = scan.startedAt
        finishedAt = scan.finishedAt ?? 0
        walkComplete = scan.walkComplete
        error = scan.error ?? ""
        phase = scan.phase?.rawValue ?? ""
        verifying = scan.verifying
    }
}
