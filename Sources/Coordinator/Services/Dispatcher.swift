import ServiceLifecycle

/// Sends queued jobs whenever something may have changed what can be sent: a walk batch, a
/// worker joining, credit coming back, a job taken back. Stops on graceful shutdown.
struct Dispatcher: Service {
    let coordinator: Coordinator
    init(_ coordinator: Coordinator) { self.coordinator = coordinator }

    func run() async {
        for await _ in coordinator.dispatchBell.rings.cancelOnGracefulShutdown() {
            await coordinator.dispatch()
        }
    }
}
