import Foundation
import ServiceLifecycle
import Shared

/// Reads the coordinator's messages and starts the jobs it accepts. Ends when the transport
/// closes (the worker stopped itself); on graceful shutdown (SIGTERM) it stops taking work,
/// tells the coordinator, and closes the transport. Jobs still running are left to finish or
/// to be cancelled with the process.
struct WorkerChannel: Service {
    let worker: WorkerDaemon

    func run() async {
        let worker = self.worker
        worker.logger.info("connecting", metadata: ["coordinator": "\(worker.configuration.endpoint)", "worker": "\(worker.configuration.workerID)"])
        worker.sendHello()
        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { jobs in
                for await frames in worker.transport.inbox {
                    worker.handle(frames, jobs: &jobs)
                }
                jobs.cancelAll()
            }
        } onGracefulShutdown: {
            worker.logger.info("shutting down: telling the coordinator")
            worker.stop(reason: "worker shutting down", status: nil)
        }
    }
}

/// Heartbeats with the worker's load while welcomed; HELLO again (with back-off) when the
/// coordinator has been silent too long. For `cull run`'s workers it also watches the parent
/// process and stops the worker when the run that started it is gone.
struct WorkerHeartbeat: Service {
    let worker: WorkerDaemon

    func run() async {
        await cancelWhenGracefulShutdown {
            while true {
                let interval = worker.state.withLock { $0.heartbeatInterval }
                do { try await Task.sleep(for: interval) } catch { return }
                if let parent = worker.configuration.parentProcess, getppid() != parent {
                    worker.logger.warning("the process that started this worker is gone; stopping")
                    worker.stop(reason: "parent process exited", status: nil)
                    return
                }
                beat(interval: interval)
            }
        }
    }

    private func beat(interval: Duration) {
        let (welcomed, silentFor, helloDue, liveness, jobs) = worker.state.withLock { state in
            let now = ContinuousClock.now
            let due = state.helloSentAt.map { now - $0 >= state.helloBackoff } ?? true
            return (state.isWelcomed, now - state.lastHeard, due, state.heartbeatLiveness, state.jobsInFlight.count)
        }
        if !welcomed || silentFor > interval * liveness {
            if welcomed {
                worker.logger.warning("coordinator silent; saying hello again", metadata: ["silent": "\(silentFor)"])
                worker.state.withLock { $0.isWelcomed = false }
            } else if silentFor >= .seconds(30) && worker.state.withLock({ state in
                let now = ContinuousClock.now
                guard state.lastSilenceWarning.map({ now - $0 >= .seconds(60) }) ?? true else { return false }
                state.lastSilenceWarning = now
                return true
            }) {
                // A refused CURVE handshake looks like silence from here: say what to check.
                worker.logger.warning("""
                    no answer from the coordinator at \(worker.configuration.endpoint) for \(silentFor): is cull serve running there? \
                    If it was started with --key: is this worker's .public key in its --authorized folder (then `systemctl reload cull`), \
                    and is --server-key the coordinator's public key? Its log names every key it refused.
                    """)
            }
            if helloDue { worker.sendHello() }
            return
        }
        var heartbeat = Cull_V1_Heartbeat()
        heartbeat.inFlightJobs = UInt32(jobs)
        heartbeat.inFlightPhotos = UInt32(worker.pipeline.photosInFlight.inUse)
        heartbeat.abandonedFetches = UInt32(worker.pipeline.fetchQueue.abandoned + worker.pipeline.computeQueue.abandoned)
        heartbeat.softwareVersion = CullVersion.software
        worker.transport.send(WireCodec.encode(.heartbeat(heartbeat)))
    }
}

extension WorkerDaemon {
    /// The worker's services, in start order (the group stops them in reverse).
    var services: [any Service] { [WorkerChannel(worker: self), WorkerHeartbeat(worker: self)] }
}
