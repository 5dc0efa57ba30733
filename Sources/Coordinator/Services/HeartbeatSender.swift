import ServiceLifecycle
import Shared

/// Heartbeats to every worker, on a loop of its own so that slow SQLite writes elsewhere never
/// delay them.
struct HeartbeatSender: Service {
    let coordinator: Coordinator
    init(_ coordinator: Coordinator) { self.coordinator = coordinator }

    func run() async {
        let heartbeat = WireCodec.encode(.heartbeat(Cull_V1_Heartbeat()))
        await cancelWhenGracefulShutdown {
            while true {
                do { try await Task.sleep(for: coordinator.configuration.heartbeatInterval) } catch { return }
                for worker in coordinator.scheduler.workers() { coordinator.work.send([worker.routingID] + heartbeat) }
            }
        }
    }
}
