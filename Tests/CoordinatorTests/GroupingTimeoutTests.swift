@testable import Coordinator
import Foundation
import Testing

/// `--grouping-timeout`: a grouping past it is stopped (its threads end, no second grouping
/// starts beside it) and the scan fails with a message that says what to do.
@Suite("Grouping timeout", .timeLimit(.minutes(1)))
struct GroupingTimeoutTests {
    @Test("a grouping that outlasts its timeout is told to stop, ends, and fails its scan with what to do")
    func timeout() async throws {
        let stopped = StopFlag()
        let harness = try await CoordinatorHarness(photos: 1) { configuration in
            configuration.groupingTimeout = .milliseconds(200)
            // A grouping that runs until it is told to stop (at most 20 s).
            configuration.beforeGrouping = { stop in
                let deadline = ContinuousClock.now + .seconds(20)
                while !stop.isSet, ContinuousClock.now < deadline { usleep(1000) }
                if stop.isSet { stopped.set() }
            }
        }
        let worker = try await FakeWorker.join("w1", capacity: 1, on: harness, mailbox: Mailbox())
        let scan = try await harness.startScan()
        worker.send(.result(FakeWorker.result(for: try #require(await worker.nextJob()))))

        #expect(try await harness.poll { try await harness.store.scan(id: scan.id)?.state == .failed })
        let failed = try #require(try await harness.store.scan(id: scan.id))
        #expect(failed.error?.contains("--grouping-timeout") == true, "\(failed.error ?? "")")
        #expect(await harness.poll { stopped.isSet && harness.coordinator.groupingsRunning.current == 0 }, "the grouping itself ended")
        await harness.stop()
    }

    @Test("a stopped grouper throws instead of returning partial groups")
    func stoppedGrouper() {
        let photos = (0..<10).map { GroupingPhoto(id: Int64($0), path: "/\($0)", sha256: [UInt8($0)], pHash: 0, dHash: 0,
                                                  width: 8, height: 8, fileSize: 1, sharpness: 0) }
        #expect(throws: CancellationError.self) { try Grouper().groups(of: photos, shouldStop: { true }) }
        #expect((try? Grouper().groups(of: photos, shouldStop: { false }))?.count == 1)
    }
}
