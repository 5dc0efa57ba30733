import Analysis
import Foundation
import ServiceLifecycle
import Shared

/// The work channel: workers' messages in. HELLO registers a worker, RESULTs are checked
/// against the dispatch in flight before they are buffered, heartbeats keep workers alive,
/// DISCONNECT hands their jobs back.
///
/// On graceful shutdown it tells every worker goodbye (they reconnect to whoever listens
/// next) and closes the transport, which ends its inbox and so this loop.
struct WorkChannel: Service {
    let coordinator: Coordinator
    init(_ coordinator: Coordinator) { self.coordinator = coordinator }

    func run() async {
        let coordinator = self.coordinator
        await withGracefulShutdownHandler {
            for await frames in coordinator.work.inbox {
                await handle(frames)
            }
        } onGracefulShutdown: {
            var goodbye = Cull_V1_Disconnect()
            goodbye.reason = "coordinator shutting down"
            goodbye.retry = true
            let message = WireCodec.encode(.disconnect(goodbye))
            for worker in coordinator.scheduler.workers() {
                coordinator.work.send([worker.routingID] + message)
            }
            Task { await coordinator.work.shutdown() }
        }
    }

    func handle(_ frames: [[UInt8]]) async {
        guard frames.count >= 2 else { return }
        let routingID = frames[0]
        let workerID = Coordinator.peerKey(routingID)
        let scheduler = coordinator.scheduler
        let command: Cull_V1_Envelope.OneOf_Command
        do throws(ProtocolViolation) {
            command = try WireCodec.decode(frames.dropFirst())
        } catch {
            scheduler.count { $0.protocolErrors += 1 }
            coordinator.dropLog.warning(coordinator.logger, "refused a message from a worker", metadata: ["worker": "\(workerID)", "reason": "\(error)"])
            coordinator.reply(to: routingID, error: error.errorCode, message: error.description, on: coordinator.work)
            return
        }
        switch command {
        case .hello(let hello):
            welcome(hello, workerID: workerID, routingID: routingID)
        case .result(let result):
            await receive(result, workerID: workerID, routingID: routingID)
        case .heartbeat(let heartbeat):
            if !scheduler.heard(from: workerID, heartbeat: heartbeat) {
                coordinator.reply(to: routingID, error: .unknownPeer, message: "unknown worker: say HELLO", on: coordinator.work)
            }
        case .disconnect(let goodbye):
            let jobs = scheduler.remove(workerID: workerID)
            coordinator.logger.info("worker left", metadata: ["worker": "\(workerID)", "reason": "\(goodbye.reason)", "jobs_returned": "\(jobs.count)"])
            if !jobs.isEmpty { await coordinator.takeBack(jobs, reason: .workerLost, why: "its worker left (\(goodbye.reason))") }
        case .protocolError(let error):
            coordinator.dropLog.warning(coordinator.logger, "worker refused a message", metadata: ["worker": "\(workerID)", "code": "\(error.code)", "message": "\(error.message)"])
        default:
            scheduler.count { $0.protocolErrors += 1 }
            coordinator.reply(to: routingID, error: .malformed, message: "\(command.name) is not a work-channel command", on: coordinator.work)
        }
    }

    private func welcome(_ hello: Cull_V1_Hello, workerID: String, routingID: [UInt8]) {
        let configuration = coordinator.configuration
        let keyName = coordinator.work.userID(of: routingID)
        let orphaned = coordinator.scheduler.register(workerID: workerID, hello: hello, routingID: routingID, keyName: keyName)
        var welcome = Cull_V1_Welcome()
        welcome.coordinatorID = coordinator.coordinatorID
        welcome.heartbeatIntervalMs = UInt32(configuration.heartbeatInterval.wholeMilliseconds)
        welcome.heartbeatLiveness = UInt32(configuration.heartbeatLiveness)
        welcome.maxMessageBytes = UInt64(WireProtocol.maxMessageBytes)
        welcome.pipelineVersion = PhotoAnalyzer.pipelineVersion
        coordinator.work.send([routingID] + WireCodec.encode(.welcome(welcome)))
        coordinator.logger.info("worker joined", metadata: [
            "worker": "\(workerID)", "host": "\(hello.host)", "key": "\(keyName ?? "-")", "capacity": "\(hello.capacity)",
            "version": "\(hello.softwareVersion)", "pipeline": "\(hello.pipelineVersion)",
        ])
        if hello.pipelineVersion != PhotoAnalyzer.pipelineVersion {
            coordinator.logger.warning("worker runs another analysis pipeline version; its results are stored with it and redone by a later scan",
                                       metadata: ["worker": "\(workerID)", "worker_pipeline": "\(hello.pipelineVersion)", "ours": "\(PhotoAnalyzer.pipelineVersion)"])
        }
        if !orphaned.isEmpty {
            let coordinator = self.coordinator
            Task { await coordinator.takeBack(orphaned, reason: .workerLost, why: "its worker restarted", suspect: true) }
        }
        coordinator.dispatchBell.ring()
    }

    /// Only the dispatch in flight is buffered; anything else is dropped here, counted, and
    /// frees no credit. Waits while the result buffer is full (backpressure on workers).
    private func receive(_ result: Cull_V1_Result, workerID: String, routingID: [UInt8]) async {
        let scheduler = coordinator.scheduler
        guard let worker = scheduler.worker(workerID) else {
            // Not registered (we restarted?): store nothing it sends until it says HELLO; its
            // job comes back through the deadline or recovery.
            coordinator.reply(to: routingID, error: .unknownPeer, message: "say HELLO first", on: coordinator.work)
            return
        }
        _ = scheduler.heard(from: workerID)
        switch scheduler.resultArrived(result, from: workerID) {
        case .accepted:
            coordinator.metrics.received(result.outcomes)
            do {
                try await coordinator.results.append(ReceivedResult(result: result, workerID: workerID, pipelineVersion: worker.hello.pipelineVersion))
            } catch {
                scheduler.stored(jobIDs: [result.jobID])  // shutting down: the job comes back after a restart
            }
        case .cancelledJob:
            scheduler.count { $0.resultsStale += 1 }
            coordinator.dispatchBell.ring()
        case .refused(let refusal):
            switch refusal {
            case .otherGeneration: scheduler.count { $0.resultsStale += 1 }
            default: scheduler.count { $0.resultsDuplicate += 1 }
            }
            coordinator.dropLog.warning(coordinator.logger, "dropped a result that is not the dispatch in flight",
                                     metadata: ["worker": "\(workerID)", "job": "\(result.jobID)", "attempt": "\(result.attempt)", "why": "\(refusal.map { "\($0)" } ?? "no such job in flight")"])
        }
    }
}
