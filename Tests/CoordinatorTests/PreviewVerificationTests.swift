@testable import Coordinator
import Foundation
import Shared
import Testing

/// Nothing is a near-duplicate on an embedded preview's word alone: near-group members whose
/// features came from a preview are analysed again from their main image (verification jobs),
/// and the scan groups on what the main images say. Driven in process through the seam.
@Suite("Preview verification", .timeLimit(.minutes(5)))
struct PreviewVerificationTests {
    /// Two photos whose previews look the same; their main images look `same` or not.
    func verify(mainImagesAgree same: Bool) async throws -> (groups: [Cull_V1_Group], scan: ScanRecord) {
        let harness = try await CoordinatorHarness(photos: 2) { $0.analysis.usePreviews = true }  // as `--previews auto`
        let worker = try await FakeWorker.join("w1", capacity: 2, on: harness, mailbox: Mailbox())
        let scan = try await harness.startScan()
        let first = [try #require(await worker.nextJob()), try #require(await worker.nextJob())]
        #expect(first.allSatisfy { $0.options.usePreviews }, "the scan allows previews")
        for job in first {
            worker.send(.result(FakeWorker.result(for: job) { FakeWorker.features(look: 7, photoID: $0, source: .embeddedPreview) }))
        }

        // Grouping found them alike on their previews: both go back, for their main images.
        let again = [try #require(await worker.nextJob()), try #require(await worker.nextJob())]
        #expect(again.allSatisfy { !$0.options.usePreviews }, "verification jobs analyse the main image")
        #expect(Set(again.flatMap { $0.photos.map(\.photoID) }) == Set(first.flatMap { $0.photos.map(\.photoID) }))
        let verifying = try #require(try await harness.store.scan(id: scan.id))
        #expect(verifying.state == .running && verifying.phase == .verifying && verifying.verifying == 2)
        #expect(try await harness.store.groups(scanID: scan.id).isEmpty, "no group is stored on previews")

        for job in again {
            worker.send(.result(FakeWorker.result(for: job) { photoID in
                FakeWorker.features(look: same ? 7 : UInt64(100 + photoID), photoID: photoID, source: .mainImage)
            }))
        }
        #expect(try await harness.poll { try await harness.store.scan(id: scan.id)?.state == .done })
        let groups = try await harness.store.groups(scanID: scan.id)
        let done = try #require(try await harness.store.scan(id: scan.id))
        await harness.stop()
        return (groups, done)
    }

    @Test("previews alike, main images different: verified apart, no group")
    func staleGroupSplit() async throws {
        let (groups, scan) = try await verify(mainImagesAgree: false)
        #expect(groups.isEmpty)
        #expect(scan.verifying == 2 && scan.phase == nil)
    }

    @Test("previews alike, main images alike: the near group is stored once verified")
    func honestGroupKept() async throws {
        let (groups, _) = try await verify(mainImagesAgree: true)
        #expect(groups.count == 1 && groups.first?.kind == "near" && groups.first?.members.count == 2)
    }

    @Test("features from the main image, or from a worker that does not say but was told to decode the main image, are not verified again")
    func sourceRules() {
        #expect(!Cull_V1_Features.with { $0.source = .mainImage }.mayComeFromPreview(fullDecode: false))
        #expect(Cull_V1_Features.with { $0.source = .embeddedPreview }.mayComeFromPreview(fullDecode: true))
        #expect(Cull_V1_Features().mayComeFromPreview(fullDecode: false), "an older worker that may have used a preview")
        #expect(!Cull_V1_Features().mayComeFromPreview(fullDecode: true), "an older worker told to decode the main image")
    }

    @Test("phases of a running scan: walking, analysing, grouping, verifying; none once ended")
    func phases() {
        var scan = ScanRecord(id: 1, libraryID: 1, root: "/", generation: 1, state: .running, walkComplete: false,
                              total: 10, done: 3, failed: 0, groups: 0, startedAt: 0, finishedAt: nil, error: nil)
        #expect(scan.phase == .walking)
        scan.walkComplete = true
        #expect(scan.phase == .analysing)
        scan.done = 10
        #expect(scan.phase == .grouping)
        scan.done = 8
        scan.verifying = 2
        #expect(scan.phase == .verifying)
        scan.state = .done
        #expect(scan.phase == nil)
    }
}
