import Analysis
import Foundation
import Logging
import Shared
import Synchronization

/// The worker: jobs in, results out, over one `MessageTransport` to the coordinator (a ZeroMQ
/// DEALER socket on its own thread in production, an in-process transport in tests).
///
/// It runs as two services (`services`): `WorkerChannel` reads the coordinator's messages and
/// starts jobs; `WorkerHeartbeat` keeps both sides alive. Async code here only awaits: file
/// reads and decoding run on the pipeline's queues, shared state is one Mutex held briefly.
final class WorkerDaemon: Sendable {
    let configuration: WorkerConfiguration
    let transport: any MessageTransport
    let logger: Logger
    let pipeline: PhotoPipeline
    let state: Mutex<WorkerState>
    let dropLog = LogThrottle()

    init(configuration: WorkerConfiguration, transport: any MessageTransport, faults: FaultInjection, logger: Logger) {
        self.configuration = configuration
        self.transport = transport
        self.logger = logger
        if faults.isActive { logger.warning("fault injection is on (\(FaultInjection.variable)): for tests only") }
        self.state = Mutex(WorkerState(heartbeatInterval: configuration.heartbeatInterval, heartbeatLiveness: configuration.heartbeatLiveness))
        self.pipeline = PhotoPipeline(fetchThreads: configuration.fetchThreads, computeThreads: configuration.computeThreads,
                                      readPolicy: configuration.readPolicy, faults: faults)
    }

    var exitStatus: WorkerExitStatus { state.withLock { $0.exitStatus } }

    // MARK: messages

    /// Handles one message from the coordinator; a JOB it accepts is started in `jobs`.
    func handle(_ frames: [[UInt8]], jobs: inout DiscardingTaskGroup) {
        let command: Cull_V1_Envelope.OneOf_Command
        do {
            command = try WireCodec.decode(frames)
        } catch {
            refused(error)
            return
        }
        state.withLock { $0.lastHeard = .now; $0.heardValidMessage = true }
        switch command {
        case .welcome(let welcome):
            state.withLock { $0.welcomed(welcome) }
            logger.info("connected", metadata: ["coordinator": "\(welcome.coordinatorID)"])
            if welcome.pipelineVersion != 0 && welcome.pipelineVersion != PhotoAnalyzer.pipelineVersion {
                logger.warning("""
                    the coordinator keeps analysis pipeline \(welcome.pipelineVersion), this worker computes \
                    \(PhotoAnalyzer.pipelineVersion): its results are stored, but the coordinator's next scan analyses \
                    those photos again; run the same cull version on both sides
                    """)
            }
        case .job(let job):
            accept(job, jobs: &jobs)
        case .cancelJobs(let cancel):
            let cancelled = state.withLock { $0.cancel(cancel) }
            logger.info("coordinator cancelled jobs", metadata: ["jobs": "\(cancelled.map(\.jobID))", "reason": "\(cancel.reason)"])
        case .heartbeat:
            break
        case .disconnect(let disconnect):
            logger.warning("coordinator disconnected us", metadata: ["reason": "\(disconnect.reason)"])
            if disconnect.retry {
                state.withLock { $0.isWelcomed = false }
            } else {
                stop(reason: nil, status: .normal)
            }
        case .protocolError(let error):
            switch error.code {
            case .unknownPeer:
                // The coordinator restarted or forgot us: introduce ourselves again.
                state.withLock { $0.isWelcomed = false; $0.helloSentAt = nil }
                sendHello()
            case .versionMismatch where !state.withLock({ $0.everWelcomed }):
                logger.critical("the coordinator speaks another protocol version; upgrade cull on one side", metadata: ["coordinator": "\(error.message)"])
                stop(reason: nil, status: .incompatible)
            default:
                dropLog.warning(logger, "coordinator refused a message", metadata: ["code": "\(error.code)", "message": "\(error.message)"])
            }
        default:
            dropLog.warning(logger, "unexpected command from the coordinator, ignored", metadata: ["command": "\(command.name)"])
        }
    }

    /// A message that did not decode. Only a coordinator that never welcomed us and keeps
    /// speaking another version is incompatible; stray frames after a WELCOME are dropped.
    private func refused(_ error: ProtocolViolation) {
        dropLog.warning(logger, "dropped a message from the coordinator", metadata: ["reason": "\(error)"])
        guard case .versionMismatch = error else { return }
        let incompatible = state.withLock { state -> Bool in
            guard !state.heardValidMessage else { return false }
            state.versionMismatches += 1
            return state.versionMismatches >= 3
        }
        if incompatible {
            logger.critical("the coordinator speaks another protocol version: \(error.description)")
            stop(reason: error.description, status: .incompatible)
        }
    }

    /// Starts a job unless we are draining or it would exceed our own capacity: the worker
    /// enforces the credit it offered, whatever the coordinator sends (rule 5).
    private func accept(_ job: Cull_V1_Job, jobs: inout DiscardingTaskGroup) {
        let key = JobKey(job)
        let verdict = state.withLock { $0.admit(key, capacity: configuration.capacity) }
        switch verdict {
        case .accepted:
            jobs.addTask { await self.run(job, key: key) }
        case .draining:
            return
        case .duplicate:
            dropLog.warning(logger, "the coordinator sent a job we are already running; ignored", metadata: ["job": "\(job.jobID)", "attempt": "\(job.attempt)"])
        case .overCapacity:
            dropLog.warning(logger, "the coordinator sent more jobs than our capacity; refused", metadata: ["job": "\(job.jobID)", "capacity": "\(configuration.capacity)"])
            var error = Cull_V1_ProtocolError()
            error.code = .malformed
            error.message = "job \(job.jobID) attempt \(job.attempt) refused: over this worker's capacity of \(configuration.capacity) jobs"
            error.supportedVersion = UInt32(WireProtocol.version)
            transport.send(WireCodec.encode(.protocolError(error)))
        }
    }

    /// Runs one job and always answers it: a cancelled job's RESULT is what gives the
    /// coordinator its credit back (the fence stores nothing of it).
    private func run(_ job: Cull_V1_Job, key: JobKey) async {
        let result = await pipeline.run(job) { [self] in
            state.withLock { $0.cancelledJobs.contains(key) }
        }
        state.withLock { $0.finish(key) }
        transport.send(WireCodec.encode(.result(result)))
        let abandoned = pipeline.fetchQueue.abandoned + pipeline.computeQueue.abandoned
        if abandoned >= configuration.maxAbandonedFetches {
            logger.error("too many fetches are stuck in the kernel; recycling this worker so its supervisor starts a fresh one",
                         metadata: ["stuck": "\(abandoned)", "limit": "\(configuration.maxAbandonedFetches)"])
            stop(reason: "recycling: \(abandoned) fetches stuck", status: .recycle)
        }
    }

    // MARK: hello and stopping

    /// Sends HELLO; repeated HELLOs back off exponentially (Paranoid Pirate) up to 30 s.
    func sendHello() {
        var hello = Cull_V1_Hello()
        hello.workerID = configuration.workerID
        hello.softwareVersion = CullVersion.software
        hello.host = configuration.host
        hello.capacity = UInt32(configuration.capacity)
        hello.pipelineVersion = PhotoAnalyzer.pipelineVersion
        hello.pid = UInt32(getpid())
        hello.formats = PhotoAnalyzer.supportedFormats.map(\.rawValue)
        state.withLock { state in
            if state.helloSentAt != nil { state.helloBackoff = min(state.helloBackoff * 2, .seconds(30)) }
            state.helloSentAt = .now
        }
        transport.send(WireCodec.encode(.hello(hello)))
    }

    /// Stops taking work, says goodbye (if there is a reason to give) and closes the
    /// transport, which ends the channel and so the service group.
    func stop(reason: String?, status: WorkerExitStatus?) {
        state.withLock { state in
            state.draining = true
            if let status, state.exitStatus == .normal { state.exitStatus = status }
        }
        if let reason {
            var disconnect = Cull_V1_Disconnect()
            disconnect.reason = reason
            transport.send(WireCodec.encode(.disconnect(disconnect)))
        }
        let transport = self.transport
        Task { await transport.shutdown() }
    }
}
