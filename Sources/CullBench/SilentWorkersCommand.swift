import Analysis
import ArgumentParser
import CZeroMQ
import Foundation
import Logging
import Shared
import Synchronization

/// Workers that say HELLO with a large capacity, heartbeat, and never answer the jobs they get:
/// the hostile or hung crowd of issue 11's fairness test (`FairSchedulingTests`), in a process of
/// its own so that fifty sockets do not crowd the process that measures. Runs until it is
/// killed or `--seconds` pass; writes the number of JOBs received to `--status-file` after
/// every heartbeat round.
struct SilentWorkersCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "silent-workers",
        abstract: "Connects workers that heartbeat and hold every job without answering (a fairness rehearsal).")

    @Option(help: "The coordinator's work endpoint.")
    var connect: String

    @Option(help: "How many workers.")
    var count = 50

    @Option(help: "The capacity each announces in HELLO.")
    var capacity: UInt32 = 1_000

    @Option(help: "Heartbeat interval in milliseconds.")
    var heartbeatMs = 100

    @Option(help: "Stop after this many seconds.")
    var seconds = 300.0

    @Option(help: "A file that holds \"jobs N\" (the JOBs received so far), rewritten every round.")
    var statusFile: String?

    func run() async throws {
        let endpoint = connect, count = self.count
        let logger = Logger(label: "silent-workers")
        let (context, peers) = try await onOwnThread { () throws -> (ZMQContext, [SocketThread]) in
            let context = try ZMQContext()
            let peers = try (0..<count).map { index in
                try SocketThread(name: "silent-\(index)", context: context, type: .dealer, inboxCapacity: 64, logger: logger) { socket in
                    try socket.setOption(ZMQ_LINGER, Int32(0))
                    try socket.setOption(ZMQ_ROUTING_ID, bytes: Array("silent-\(index)".utf8))
                    try socket.connect(endpoint)
                }
            }
            return (context, peers)
        }
        let jobs = JobCount()
        let capacity = self.capacity
        await withTaskGroup(of: Void.self) { group in
            for (index, peer) in peers.enumerated() {
                let hello = WireCodec.encode(.hello(.with {
                    $0.workerID = "silent-\(index)"; $0.capacity = capacity; $0.pipelineVersion = PhotoAnalyzer.pipelineVersion
                }))
                peer.send(hello)
                group.addTask {
                    while let message = await peer.inbox.next() {
                        switch try? WireCodec.decode(message) {
                        case .job: jobs.value.add(1, ordering: .relaxed)
                        case .protocolError(let error) where error.code == .unknownPeer:
                            // Dropped (as silent, when this process was starved of the CPU):
                            // introduce itself again, as the protocol asks of every worker.
                            peer.send(hello)
                        default: break
                        }
                    }
                }
            }
            let deadline = ContinuousClock.now + .milliseconds(Int64(seconds * 1000))
            while ContinuousClock.now < deadline {
                for peer in peers { peer.send(WireCodec.encode(.heartbeat(Cull_V1_Heartbeat()))) }
                if let statusFile {
                    let text = "jobs \(jobs.value.load(ordering: .relaxed))\n"
                    try? await onOwnThread { try Data(text.utf8).write(to: URL(fileURLWithPath: statusFile), options: .atomic) }
                }
                try? await Task.sleep(for: .milliseconds(heartbeatMs))
            }
            for peer in peers { await peer.shutdown() }
        }
        try? await onOwnThread { context.terminate() }
        print("jobs \(jobs.value.load(ordering: .relaxed))")
    }
}

/// The JOBs the crowd received, shared by its readers.
final class JobCount: Sendable {
    let value = Atomic<Int>(0)
}
