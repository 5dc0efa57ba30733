import ServiceLifecycle
import Shared

/// The control channel: `cull scan|status|cancel|groups|workers` talk to the daemon here.
/// Requests run concurrently (a large `groups` answer must not hold up `status`), but only so
/// many at once. Graceful shutdown closes the transport, which ends the loop.
struct ControlChannel: Service {
    let coordinator: Coordinator
    let transport: any MessageTransport
    static let concurrentRequests = 16

    init(_ coordinator: Coordinator, transport: any MessageTransport) {
        self.coordinator = coordinator
        self.transport = transport
    }

    func run() async {
        let coordinator = self.coordinator
        let transport = self.transport
        let limiter = ConcurrencyLimiter(limit: Self.concurrentRequests)
        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { group in
                for await frames in transport.inbox {
                    guard frames.count >= 2 else { continue }
                    let routingID = frames[0]
                    let command: Cull_V1_Envelope.OneOf_Command
                    do throws(ProtocolViolation) {
                        command = try WireCodec.decode(frames.dropFirst())
                    } catch {
                        coordinator.scheduler.count { $0.protocolErrors += 1 }
                        coordinator.reply(to: routingID, error: error.errorCode, message: error.description, on: transport)
                        continue
                    }
                    do { try await limiter.acquire() } catch { break }
                    group.addTask {
                        defer { limiter.release() }
                        let answer = await coordinator.answer(command)
                        transport.send([routingID] + WireCodec.encode(answer))
                    }
                }
            }
        } onGracefulShutdown: {
            Task { await transport.shutdown() }
        }
    }
}
