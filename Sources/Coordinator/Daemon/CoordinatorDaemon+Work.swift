import Analysis
import Foundation
import Shared

/// The work channel: workers' messages in, jobs and heartbeats out.
extension CoordinatorDaemon {
    /// A printable key for a ZeroMQ routing id (worker ids are UTF-8; libzmq's own are binary).
    static func peerKey(_ routingID: [UInt8]) -> String {
        if let text = String(validating: routingID, as: UTF8.self),
           !text.isEmpty, text.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value < 0x7F }) {
            return text
        }
        return "0x" + routingID.map { String(format: "%02x", $0) }.joined()
    }

    func workLoop(_ socket: SocketThread) async {
        for await frames in socket.inbox {
            guard frames.count >= 2 else { continue }
            let routingID = frames[0]
            let workerID = Self.peerKey(routingID)
            let command: Cull_V1_Envelope.OneOf_Command
            do throws(ProtocolViolation) {
                command = try WireCodec.decode(frames.dropFirst())
            } catch {
                scheduler.count { $0.protocolErrors += 1 }
                dropLog.warning(logger, "refused a message from a worker", metadata: ["worker": "\(workerID)", "reason": "\(error)"])
                reply(socket, to: routingID, error: error.errorCode, message: error.description)
                continue
            }
            switch command {
            case .hello(let hello):
                let orphaned = scheduler.register(workerID: workerID, hello: hello, routingID: routingID)
                var welcome = Cull_V1_Welcome()
                welcome.coordinatorID = coordinatorID
                welcome.heartbeatIntervalMs = UInt32(configuration.heartbeatInterval.wholeMilliseconds)
                welcome.heartbeatLiveness = UInt32(configuration.heartbeatLiveness)
                welcome.maxMessageBytes = UInt64(WireProtocol.maxMessageBytes)
                socket.send([routingID] + WireCodec.encode(.welcome(welcome)))
                logger.info("worker joined", metadata: [
                    "worker": "\(workerID)", "host": "\(hello.host)", "capacity": "\(hello.capacity)",
                    "version": "\(hello.softwareVersion)", "pipeline": "\(hello.pipelineVersion)",
                ])
                if hello.pipelineVersion != PhotoAnalyzer.pipelineVersion {
                    logger.warning("worker runs another analysis pipeline version; its results are stored with it and redone by a later scan",
                                   metadata: ["worker": "\(workerID)", "worker_pipeline": "\(hello.pipelineVersion)", "ours": "\(PhotoAnalyzer.pipelineVersion)"])
                }
                if !orphaned.isEmpty { Task { await self.takeBack(orphaned, reason: .workerLost, why: "its worker restarted") } }
                dispatchBell.ring()
            case .result(let result):
                guard let worker = scheduler.worker(workerID) else {
                    // Not registered (we restarted?): store nothing it sends until it says HELLO;
                    // its job will come back through the deadline or recovery.
                    reply(socket, to: routingID, error: .unknownPeer, message: "say HELLO first")
                    continue
                }
                _ = scheduler.heard(from: workerID)
                scheduler.resultArrived(jobID: result.jobID, attempt: result.attempt, workerID: workerID, photos: result.outcomes.count)
                resultReceived(ReceivedResult(result: result, workerID: workerID, pipelineVersion: worker.hello.pipelineVersion))
            case .heartbeat(let heartbeat):
                if !scheduler.heard(from: workerID, heartbeat: heartbeat) {
                    reply(socket, to: routingID, error: .unknownPeer, message: "unknown worker: say HELLO")
                }
            case .disconnect(let goodbye):
                let jobs = scheduler.remove(workerID: workerID)
                logger.info("worker left", metadata: ["worker": "\(workerID)", "reason": "\(goodbye.reason)", "jobs_returned": "\(jobs.count)"])
                if !jobs.isEmpty { Task { await self.takeBack(jobs, reason: .workerLost, why: "its worker left (\(goodbye.reason))") } }
            case .protocolError(let error):
                dropLog.warning(logger, "worker refused a message", metadata: ["worker": "\(workerID)", "code": "\(error.code)", "message": "\(error.message)"])
            default:
                scheduler.count { $0.protocolErrors += 1 }
                reply(socket, to: routingID, error: .malformed, message: "\(command.name) is not a work-channel command")
            }
        }
    }

    func reply(_ socket: SocketThread, to routingID: [UInt8], error code: Cull_V1_ProtocolError.Code, message: String) {
        var error = Cull_V1_ProtocolError()
        error.code = code
        error.message = message
        error.supportedVersion = UInt32(WireProtocol.version)
        socket.send([routingID] + WireCodec.encode(.protocolError(error)))
    }

    // MARK: dispatch

    func dispatchLoop(_ socket: SocketThread) async {
        for await _ in dispatchBell.rings {
            await dispatch(socket)
        }
    }

    /// Sends queued jobs to workers with free credit. Each dispatch is recorded in SQLite
    /// (with its new attempt token) before its JOB leaves.
    func dispatch(_ socket: SocketThread) async {
        while true {
            let assignments = scheduler.assign(limit: 64)
            guard !assignments.isEmpty else { return }
            var lost: [Int64] = []
            let tokens: [Int64: Int64]
            do {
                tokens = try await store.recordDispatches(assignments.map { ($0.spec.jobID, $0.workerID) })
            } catch {
                logger.error("could not record dispatches; retrying shortly", metadata: ["error": "\(describe(error))"])
                for assignment in assignments { scheduler.abandonAssignment(jobID: assignment.spec.jobID) }
                scheduler.enqueue(assignments.map(\.spec), atFront: true)
                return
            }
            for assignment in assignments {
                guard let attempt = tokens[assignment.spec.jobID] else {
                    scheduler.abandonAssignment(jobID: assignment.spec.jobID)  // its scan ended
                    continue
                }
                let deadline = ContinuousClock.now + configuration.jobDeadline
                guard let routingID = scheduler.dispatched(jobID: assignment.spec.jobID, attempt: attempt, deadline: deadline) else {
                    // The worker left between assignment and recording: take the job back.
                    lost.append(assignment.spec.jobID)
                    continue
                }
                var job = Cull_V1_Job()
                job.jobID = assignment.spec.jobID
                job.generation = assignment.spec.generation
                job.attempt = attempt
                job.fetchTimeoutMs = UInt32(clamping: configuration.fetchTimeout.wholeMilliseconds)
                job.deadlineMs = UInt32(clamping: configuration.jobDeadline.wholeMilliseconds)
                job.options = Cull_V1_AnalysisOptions(configuration.analysis)
                job.photos = assignment.spec.photos
                socket.send([routingID] + WireCodec.encode(.job(job)))
            }
            if !lost.isEmpty { await takeBack(lost, reason: .workerLost, why: "its worker left") }
        }
    }

    // MARK: deadlines and liveness

    /// Deadlines and liveness, five times a second.
    func tickLoop(_ socket: SocketThread) async {
        while !stopping.load(ordering: .relaxed) {
            do { try await Task.sleep(for: .milliseconds(200)) } catch { return }
            for flight in scheduler.expired() {
                var cancel = Cull_V1_CancelJobs()
                cancel.jobIds = [flight.spec.jobID]
                cancel.attempts = [flight.attempt]
                cancel.reason = "deadline passed"
                if let routingID = scheduler.routingID(of: flight.workerID) {
                    socket.send([routingID] + WireCodec.encode(.cancelJobs(cancel)))
                }
                logger.warning("job missed its deadline; requeueing", metadata: ["job": "\(flight.spec.jobID)", "worker": "\(flight.workerID)"])
                await takeBack([flight.spec.jobID], reason: .timeout, why: "it missed its \(configuration.jobDeadline.millisecondsDescription) deadline")
            }
            for workerID in scheduler.silentWorkers(limit: configuration.heartbeatInterval * configuration.heartbeatLiveness) {
                let jobs = scheduler.remove(workerID: workerID)
                logger.warning("worker went silent; requeueing its jobs", metadata: ["worker": "\(workerID)", "jobs": "\(jobs.count)"])
                await takeBack(jobs, reason: .workerLost, why: "its worker stopped answering")
            }
            dispatchBell.ring()
        }
    }

    /// Heartbeats to every worker, on a loop of their own so that slow SQLite writes elsewhere
    /// never delay them.
    func heartbeatLoop(_ socket: SocketThread) async {
        let heartbeat = WireCodec.encode(.heartbeat(Cull_V1_Heartbeat()))
        while !stopping.load(ordering: .relaxed) {
            do { try await Task.sleep(for: configuration.heartbeatInterval) } catch { return }
            for worker in scheduler.workers() { socket.send([worker.routingID] + heartbeat) }
        }
    }

    /// Takes jobs back from workers and queues them again; a job dispatched too often is split
    /// photo by photo, and a single photo dispatched too often is recorded failed.
    func takeBack(_ jobIDs: [Int64], reason: Cull_V1_FailureKind, why: String) async {
        guard !jobIDs.isEmpty else { return }
        scheduler.count { $0.jobsRequeued += UInt64(jobIDs.count) }
        do {
            let specs = try await store.requeue(jobIDs: jobIDs)
            var again: [JobSpec] = []
            var finished: Set<Int64> = []
            // A job whose worker died may hold the photo that killed it: from now on it (and
            // its pieces) run alone, so the blame for another death is exact.
            let suspect = reason == .workerLost
            for var spec in specs {
                spec.runsAlone = spec.runsAlone || suspect
                if spec.dispatches < configuration.maxDispatches {
                    again.append(spec)
                } else if spec.photos.count > 1 {
                    logger.warning("job failed \(spec.dispatches) times; splitting it photo by photo", metadata: ["job": "\(spec.jobID)"])
                    again += try await store.split(jobID: spec.jobID).map { piece in
                        var piece = piece
                        piece.runsAlone = spec.runsAlone
                        return piece
                    }
                } else {
                    let message = reason == .timeout
                        ? "analysis did not finish in \(spec.dispatches) attempts (\(why)); skipped"
                        : "\(spec.dispatches) workers were lost while analysing this photo (\(why)); skipped"
                    finished.formUnion(try await store.failJob(jobID: spec.jobID, kind: reason, message: message).scansToCheck)
                }
            }
            scheduler.enqueue(again, atFront: true)
            await checkCompletion(finished)
        } catch {
            logger.error("could not requeue jobs; they will be recovered at the next restart", metadata: ["error": "\(describe(error))"])
        }
        dispatchBell.ring()
    }
}

extension Cull_V1_AnalysisOptions {
    init(_ options: AnalysisOptions) {
        self.init()
        minShortSide = UInt32(options.minShortSide)
        maxPixels = UInt64(options.maxPixels)
        maxFileBytes = UInt64(options.maxFileBytes)
        usePreviews = options.usePreviews
    }
}
