@testable import Coordinator
import Foundation
import Shared
import Synchronization
import Testing

/// A rescan that changed nothing keeps the earlier scan's groups without grouping again; any
/// change (a photo analysed again) groups again.
@Suite("Rescans keep their groups", .timeLimit(.minutes(1)))
struct RescanTests {
    @Test("unchanged: the groups are copied, the grouper does not run; a changed photo: it runs")
    func unchangedRescan() async throws {
        let groupings = Atomic<Int>(0)
        let harness = try await CoordinatorHarness(photos: 3) { configuration in
            configuration.beforeGrouping = { _ in groupings.add(1, ordering: .relaxed) }
        }
        let worker = try await FakeWorker.join("w1", capacity: 4, on: harness, mailbox: Mailbox())
        // Photos 0 and 1 look alike (a near group), photo 2 is different.
        func answer(_ count: Int) async throws {
            for _ in 0..<count {
                let job = try #require(await worker.nextJob())
                worker.send(.result(FakeWorker.result(for: job) { id in
                    FakeWorker.features(look: job.photos.first { $0.photoID == id }!.path.hasSuffix("2.jpg") ? 9 : 7, photoID: id, source: .mainImage)
                }))
            }
        }

        let first = try await harness.startScan()
        try await answer(3)
        #expect(try await harness.poll { try await harness.store.scan(id: first.id)?.state == .done })
        let firstGroups = try await harness.store.groups(scanID: first.id)
        #expect(firstGroups.count == 1 && groupings.load(ordering: .relaxed) == 1)

        let second = try await harness.startScan()  // nothing changed: no job, no grouping
        #expect(try await harness.poll { try await harness.store.scan(id: second.id)?.state == .done })
        #expect(try await harness.store.groups(scanID: second.id) == firstGroups)
        #expect(groupings.load(ordering: .relaxed) == 1, "the grouper did not run again")

        // One photo changes (new bytes, new mtime): it is analysed again, and the scan groups.
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: harness.library + "/2.jpg"))
        let third = try await harness.startScan()
        try await answer(1)
        #expect(try await harness.poll { try await harness.store.scan(id: third.id)?.state == .done })
        #expect(groupings.load(ordering: .relaxed) == 2)
        #expect(try await harness.store.groups(scanID: third.id) == firstGroups)
        await harness.stop()
    }
}
