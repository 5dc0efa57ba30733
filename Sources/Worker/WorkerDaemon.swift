import Analysis
import CZeroMQ
import Foundation
import Logging
import ServiceLifecycle
import Shared
import Synchronization

/// The worker daemon: one DEALER socket to the coordinator, jobs in, results out.
///
/// Async code here only awaits: the socket has its own thread, file reads and decoding run on
/// the pipeline's queues. Shared state is a few Mutex-guarded fields held for a moment.
final class WorkerDaemon: Service, Sendable {
    private struct State {
        var welcomed = false
        var lastHeard: ContinuousClock.Instant = .now
        var helloSentAt: ContinuousClock.Instant?
        var helloBackoff: Duration = .milliseconds(250)
        /// Jobs being worked on, with the attempt of their dispatch.
        var jobsInFlight: [Int64: Int64] = [:]
        /// Of those, the ones the coordinator cancelled (only ever a subset: bounded).
        var cancelledJobs: Set<Int64> = []
        /// Heartbeat settings; WELCOME may change them.
        var heartbeatInterval: Duration
        var heartbeatLiveness: Int
        var draining = false
        var exitStatus: WorkerExitStatus = .normal
        var versionMismatches = 0
        /// Once one message in our version arrived, the coordinator is compatible for good.
        var heardValidMessage = false
        var everWelcomed = false
    }

    let configuration: WorkerConfiguration
    private let logger: Logger
    private let pipeline: PhotoPipeline
    private let state: Mutex<State>
    private let dropLog = LogThrottle()

    init(configuration: WorkerConfiguration, faults: FaultInjection, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
        if faults.isActive { logger.warning("fault injection is on (\(FaultInjection.variable)): for tests only") }
        self.state = Mutex(State(heartbeatInterval: configuration.heartbeatInterval, heartbeatLiveness: configuration.heartbeatLiveness))
        self.pipeline = PhotoPipeline(fetchThreads: configuration.fetchThreads, computeThreads: configuration.computeThreads, faults: faults)
    }

    var exitStatus: WorkerExitStatus { state.withLock { $0.exitStatus } }

    func run() async throws {
        let context = try ZMQContext()
        let socket = try SocketThread(name: "cull-worker.dealer", context: context, type: .dealer, logger: logger) { socket in
            try socket.setOption(ZMQ_ROUTING_ID, bytes: Array(configuration.workerID.utf8))
            try socket.setOption(ZMQ_LINGER, Int32(1000))
            try socket.setOption(ZMQ_MAXMSGSIZE, WireProtocol.maxMessageBytes)
            try socket.setOption(ZMQ_RECONNECT_IVL, Int32(100))
            try socket.setOption(ZMQ_RECONNECT_IVL_MAX, Int32(5000))
            try socket.setOption(ZMQ_SNDHWM, Int32(1000))
            try socket.setOption(ZMQ_RCVHWM, Int32(1000))
            try socket.connect(configuration.endpoint)
        }
        logger.info("connecting", metadata: ["coordinator": "\(configuration.endpoint)", "worker": "\(configuration.workerID)"])
        sendHello(socket)

        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { group in
                group.addTask { await self.heartbeatLoop(socket) }
                for await frames in socket.inbox {
                    handle(frames, socket: socket, group: &group)
                }
                group.cancelAll()
            }
        } onGracefulShutdown: {
            self.logger.info("shutting down: telling the coordinator")
            self.stop(socket, reason: "worker shutting down", status: nil)
        }
        await socket.shutdown()
        await terminate(context)
    }

    // MARK: messages

    private func handle(_ frames: [[UInt8]], socket: SocketThread, group: inout DiscardingTaskGroup) {
        let command: Cull_V1_Envelope.OneOf_Command
        do {
            command = try WireCodec.decode(frames)
        } catch {
            dropLog.warning(logger, "dropped a message from the coordinator", metadata: ["reason": "\(error)"])
            // Only a coordinator that never welcomed us and keeps speaking another version
            // is incompatible; stray frames after a WELCOME are just dropped.
            if case .versionMismatch = error {
                let incompatible = state.withLock { state -> Bool in
                    guard !state.heardValidMessage else { return false }
                    state.versionMismatches += 1
                    return state.versionMismatches >= 3
                }
                if incompatible {
                    logger.critical("the coordinator speaks another protocol version: \(error.description)")
                    stop(socket, reason: error.description, status: .incompatible)
                }
            }
            return
        }
        state.withLock { $0.lastHeard = .now; $0.heardValidMessage = true }
        switch command {
        case .welcome(let welcome):
            state.withLock { state in
                state.welcomed = true
                state.everWelcomed = true
                state.helloBackoff = .milliseconds(250)
                // The coordinator's settings win, so both sides agree on who is dead.
                if welcome.heartbeatIntervalMs >= 10 { state.heartbeatInterval = .milliseconds(Int64(welcome.heartbeatIntervalMs)) }
                if welcome.heartbeatLiveness >= 1 { state.heartbeatLiveness = Int(welcome.heartbeatLiveness) }
            }
            logger.info("connected", metadata: ["coordinator": "\(welcome.coordinatorID)"])
        case .job(let job):
            let accepted = state.withLock { state -> Bool in
                guard !state.draining else { return false }
                state.jobsInFlight[job.jobID] = job.attempt
                state.cancelledJobs.remove(job.jobID)
                return true
            }
            guard accepted else { return }
            group.addTask { await self.run(job, socket: socket) }
        case .cancelJobs(let cancel):
            state.withLock { state in
                for (index, jobID) in cancel.jobIds.enumerated() {
                    guard let running = state.jobsInFlight[jobID] else { continue }
                    if index < cancel.attempts.count, cancel.attempts[index] != running { continue }
                    state.cancelledJobs.insert(jobID)
                }
            }
            logger.info("coordinator cancelled jobs", metadata: ["jobs": "\(cancel.jobIds)", "reason": "\(cancel.reason)"])
        case .heartbeat:
            break
        case .disconnect(let disconnect):
            logger.warning("coordinator disconnected us", metadata: ["reason": "\(disconnect.reason)"])
            if disconnect.retry {
                state.withLock { $0.welcomed = false }
            } else {
                stop(socket, reason: nil, status: .normal)
            }
        case .protocolError(let error):
            switch error.code {
            case .unknownPeer:
                // The coordinator restarted or forgot us: introduce ourselves again.
                state.withLock { $0.welcomed = false; $0.helloSentAt = nil }
                sendHello(socket)
            case .versionMismatch where !state.withLock({ $0.everWelcomed }):
                logger.critical("the coordinator speaks another protocol version; upgrade cull on one side", metadata: ["coordinator": "\(error.message)"])
                stop(socket, reason: nil, status: .incompatible)
            default:
                dropLog.warning(logger, "coordinator refused a message", metadata: ["code": "\(error.code)", "message": "\(error.message)"])
            }
        default:
            dropLog.warning(logger, "unexpected command from the coordinator, ignored", metadata: ["command": "\(command.name)"])
        }
    }

    private func run(_ job: Cull_V1_Job, socket: SocketThread) async {
        let jobID = job.jobID
        let result = await pipeline.run(job) { [self] in
            state.withLock { $0.cancelledJobs.contains(jobID) }
        }
        let cancelled = state.withLock { state -> Bool in
            state.jobsInFlight[jobID] = nil
            return state.cancelledJobs.remove(jobID) != nil
        }
        if !cancelled {
            socket.send(WireCodec.encode(.result(result)))
        }
        let abandoned = pipeline.fetchQueue.abandoned + pipeline.computeQueue.abandoned
        if abandoned >= configuration.maxAbandonedFetches {
            logger.error("too many fetches are stuck in the kernel; recycling this worker so its supervisor starts a fresh one",
                         metadata: ["stuck": "\(abandoned)", "limit": "\(configuration.maxAbandonedFetches)"])
            stop(socket, reason: "recycling: \(abandoned) fetches stuck", status: .recycle)
        }
    }

    // MARK: heartbeats and hello

    private func heartbeatLoop(_ socket: SocketThread) async {
        while !Task.isCancelled {
            let interval = state.withLock { $0.heartbeatInterval }
            try? await Task.sleep(for: interval)
            if Task.isCancelled { return }
            let (welcomed, silentFor, helloDue, liveness) = state.withLock { state -> (Bool, Duration, Bool, Int) in
                let now = ContinuousClock.now
                let due = state.helloSentAt.map { now - $0 >= state.helloBackoff } ?? true
                return (state.welcomed, now - state.lastHeard, due, state.heartbeatLiveness)
            }
            if !welcomed || silentFor > interval * liveness {
                if welcomed {
                    logger.warning("coordinator silent; saying hello again", metadata: ["silent": "\(silentFor)"])
                    state.withLock { $0.welcomed = false }
                }
                if helloDue { sendHello(socket) }
                continue
            }
            var heartbeat = Cull_V1_Heartbeat()
            heartbeat.inFlightJobs = UInt32(state.withLock { $0.jobsInFlight.count })
            heartbeat.inFlightPhotos = UInt32(pipeline.photosInFlight.inUse)
            heartbeat.abandonedFetches = UInt32(pipeline.fetchQueue.abandoned + pipeline.computeQueue.abandoned)
            heartbeat.softwareVersion = CullVersion.software
            socket.send(WireCodec.encode(.heartbeat(heartbeat)))
        }
    }

    /// Sends HELLO; repeated HELLOs back off exponentially (Paranoid Pirate) up to 30 s.
    private func sendHello(_ socket: SocketThread) {
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
        socket.send(WireCodec.encode(.hello(hello)))
    }

    /// Stops taking work, says goodbye (if there is a reason to give) and ends the socket.
    private func stop(_ socket: SocketThread, reason: String?, status: WorkerExitStatus?) {
        state.withLock { state in
            state.draining = true
            if let status, state.exitStatus == .normal { state.exitStatus = status }
        }
        if let reason {
            var disconnect = Cull_V1_Disconnect()
            disconnect.reason = reason
            socket.send(WireCodec.encode(.disconnect(disconnect)))
        }
        Task { await socket.shutdown() }
    }

    /// zmq_ctx_term blocks until sockets close: run it on a thread of its own.
    private func terminate(_ context: ZMQContext) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                context.terminate()
                continuation.resume()
            }
        }
    }
}
