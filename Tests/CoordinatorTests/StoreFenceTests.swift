@testable import Coordinator
import Analysis
import Foundation
import GRDB
import Shared
import Testing

/// The fence of rule 4: results are stored only for the current generation and the attempt in
/// flight, checked inside the transaction that writes them.
@Suite("SQLite fence", .timeLimit(.minutes(2)))
struct StoreFenceTests {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cull-store-\(UUID())").path

    func openStore() async throws -> CullStore {
        try await CullStore.open(path: directory + "/cull.sqlite", on: BlockingQueue(label: "test", limit: 1))
    }

    func features(_ seed: UInt8) -> Cull_V1_Outcome.OneOf_Result {
        .features(.with { $0.sha256 = Data(repeating: seed, count: 32); $0.phash = UInt64(seed); $0.width = 10; $0.height = 10 })
    }

    func result(_ job: JobSpec, attempt: Int64, generation: Int64? = nil) -> Cull_V1_Result {
        .with { result in
            result.jobID = job.jobID
            result.generation = generation ?? job.generation
            result.attempt = attempt
            result.outcomes = job.photos.map { photo in .with { $0.photoID = photo.photoID; $0.result = features(1) } }
        }
    }

    func walked(_ count: Int) -> [WalkedFile] {
        (0..<count).map { WalkedFile(path: "/lib/\($0).jpg", size: 100, mtimeNanoseconds: 1) }
    }

    /// A first scan of /lib that walks `files` and stores a result for each of them.
    func analyseFirstScan(_ store: CullStore, files: [WalkedFile]) async throws {
        let (first, _) = try await store.startScan(root: "/lib")
        let job = try #require(try await store.recordWalkBatch(scan: first, files: files, jobSize: files.count).first)
        let attempt = try #require(try await store.recordDispatches([(job.jobID, "w")])[job.jobID])
        _ = try await store.applyResults([ReceivedResult(result: result(job, attempt: attempt), workerID: "w", pipelineVersion: PhotoAnalyzer.pipelineVersion)])
    }

    func analysedCount(_ store: CullStore) async throws -> Int {
        try await store.writer.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM photos WHERE status = 'analysed'") ?? 0 }
    }

    @Test("the dispatched attempt is applied once; a repeat, an old attempt or another worker change nothing")
    func attemptFence() async throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try await openStore()
        let (scan, _) = try await store.startScan(root: "/lib")
        let jobs = try await store.recordWalkBatch(scan: scan, files: walked(4), jobSize: 4)
        let job = try #require(jobs.first)
        let first = try await store.recordDispatches([(job.jobID, "w1")])
        let attempt1 = try #require(first[job.jobID])
        _ = try await store.takeBack([.init(jobID: job.jobID, attempt: attempt1)], kind: .timeout, why: "test", suspect: false, maxDispatches: 3)
        let second = try await store.recordDispatches([(job.jobID, "w2")])
        let attempt2 = try #require(second[job.jobID])
        #expect(attempt2 > attempt1, "attempt tokens only grow")

        var tally = try await store.applyResults([ReceivedResult(result: result(job, attempt: attempt1), workerID: "w1", pipelineVersion: PhotoAnalyzer.pipelineVersion)])
        #expect(tally.duplicate == 1 && tally.applied == 0, "the requeued attempt is no longer in flight")
        #expect(try await analysedCount(store) == 0)

        tally = try await store.applyResults([ReceivedResult(result: result(job, attempt: attempt2), workerID: "w1", pipelineVersion: PhotoAnalyzer.pipelineVersion)])
        #expect(tally.duplicate == 1, "right attempt, wrong worker")
        #expect(try await analysedCount(store) == 0)

        tally = try await store.applyResults([ReceivedResult(result: result(job, attempt: attempt2), workerID: "w2", pipelineVersion: PhotoAnalyzer.pipelineVersion)])
        #expect(tally.applied == 1)
        #expect(try await analysedCount(store) == 4)

        tally = try await store.applyResults([ReceivedResult(result: result(job, attempt: attempt2), workerID: "w2", pipelineVersion: PhotoAnalyzer.pipelineVersion)])
        #expect(tally.duplicate == 1 && tally.applied == 0, "a duplicate delivery is dropped")
        let done = try await store.scan(id: scan.id)?.done
        #expect(done == 4, "counted once")
    }

    @Test("a superseded or cancelled scan's results and finalize change nothing")
    func generationFence() async throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try await openStore()
        let (old, _) = try await store.startScan(root: "/lib")
        let oldJob = try #require(try await store.recordWalkBatch(scan: old, files: walked(2), jobSize: 2).first)
        let oldAttempt = try #require(try await store.recordDispatches([(oldJob.jobID, "w1")])[oldJob.jobID])

        let (new, superseded) = try await store.startScan(root: "/lib")
        #expect(superseded == [old.id])
        #expect(new.generation == old.generation + 1)
        #expect(try await store.scan(id: old.id)?.state == .superseded)

        let tally = try await store.applyResults([ReceivedResult(result: result(oldJob, attempt: oldAttempt), workerID: "w1", pipelineVersion: PhotoAnalyzer.pipelineVersion)])
        #expect(tally.stale == 1 && tally.applied == 0)
        #expect(try await analysedCount(store) == 0)

        // The old scan must never finalize, even if asked to.
        #expect(try await store.finalize(scan: old, groups: []) == false)
        #expect(try await store.scan(id: old.id)?.state == .superseded)
        await #expect(throws: ScanNotCurrent.self) { _ = try await store.recordWalkBatch(scan: old, files: walked(1), jobSize: 1) }

        // The new scan proceeds; cancelling it fences it the same way.
        let newJob = try #require(try await store.recordWalkBatch(scan: new, files: walked(2), jobSize: 2).first)
        let newAttempt = try #require(try await store.recordDispatches([(newJob.jobID, "w1")])[newJob.jobID])
        #expect(try await store.cancelScan(id: new.id)?.cancelledNow == true)
        #expect(try await store.cancelScan(id: new.id)?.cancelledNow == false, "only the first cancel cancels")
        let late = try await store.applyResults([ReceivedResult(result: result(newJob, attempt: newAttempt), workerID: "w1", pipelineVersion: PhotoAnalyzer.pipelineVersion)])
        #expect(late.stale == 1)
        #expect(try await store.recordDispatches([(newJob.jobID, "w1")]).isEmpty, "a cancelled scan's jobs are not dispatched")
        #expect(try await store.finalize(scan: new, groups: []) == false)
    }

    @Test("a scan's groups are stored as grouping made them and read back so: kinds, keepers and their reasons, distances, relations")
    func groupsStored() async throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try await openStore()
        try await analyseFirstScan(store, files: walked(5))
        let scan = try #require(try await store.runningScans().first)
        let id = try await store.writer.read { db in
            try Dictionary(uniqueKeysWithValues: Row.fetchAll(db, sql: "SELECT path, id FROM photos").map { ($0[0] as String, $0[1] as Int64) })
        }
        func photo(_ n: Int) -> Int64 { id["/lib/\(n).jpg"]! }
        let groups = [
            PhotoGroup(kind: .near, keeper: photo(1), members: [
                .init(photoID: photo(1), distance: 0, relation: .keeper), .init(photoID: photo(0), distance: 3, relation: .editedCopy),
                .init(photoID: photo(4), distance: 5, relation: .upscaledCopy),
            ], keeperReason: .notUpscaled),
            PhotoGroup(kind: .similar, keeper: photo(2), members: [
                .init(photoID: photo(2), distance: 0, relation: .keeper), .init(photoID: photo(3), distance: 9, relation: .similarShot),
            ], keeperReason: .path),
        ]
        #expect(try await store.finalize(scan: scan, groups: groups))
        let read = try await store.groups(scanID: scan.id)
        #expect(read.map(\.groupID) == [1, 2] && read.map(\.kind) == ["near", "similar"] && read.map(\.keeperReason) == ["not upscaled", "path"])
        #expect(read[0].members.map(\.path) == ["/lib/1.jpg", "/lib/0.jpg", "/lib/4.jpg"], "the keeper first, then by path")
        #expect(read[0].members.map(\.keeper) == [true, false, false] && read[0].members.map(\.distance) == [0, 3, 5])
        #expect(read[0].members.map(\.relation) == ["keeper", "edited copy", "upscaled copy"])
        #expect(read[1].members.map(\.path) == ["/lib/2.jpg", "/lib/3.jpg"] && read[1].members.map(\.distance) == [0, 9])
        #expect(read[1].members.map(\.relation) == ["keeper", "similar shot"] && read[1].members.map(\.keeper) == [true, false])
    }

    @Test("unchanged files keep their results on a rescan; changed ones are analysed again; a batch walked again counts once")
    func incrementalRescan() async throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try await openStore()
        try await analyseFirstScan(store, files: walked(3))

        let (second, _) = try await store.startScan(root: "/lib")
        var files = walked(3)
        files[1].mtimeNanoseconds = 2
        files[2].inode = 9  // the same bytes, now a file with two links: unchanged, and recorded as that file
        files[2].links = 2
        let jobs = try await store.recordWalkBatch(scan: second, files: files, jobSize: 3)
        #expect(jobs.flatMap(\.photos).map(\.path) == ["/lib/1.jpg"])
        #expect(try await store.recordWalkBatch(scan: second, files: files, jobSize: 3).isEmpty, "walked again after a restart")
        let scan = try #require(try await store.scan(id: second.id))
        #expect(scan.total == 3 && scan.done == 2)
        try await store.writer.read { db in
            let identity = try Row.fetchOne(db, sql: "SELECT inode, links FROM photos WHERE path = '/lib/2.jpg'")
            #expect(identity?[0] as Int64? == 9 && identity?[1] as Int64? == 2)
            let seen = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM photo_seen WHERE seen_generation = ?", arguments: [second.generation])
            #expect(seen == 3, "every walked file is marked with the rescan's generation")
        }
        let listed = try await store.groupingInput(scan: scan).photos
        #expect(listed.map(\.path).sorted() == ["/lib/0.jpg", "/lib/2.jpg"], "grouping reads the scan's analysed photos")
    }

    @Test("unchanged files with an older pipeline's result or a failure that may pass are analysed again, and counted apart")
    func analysedAgain() async throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try await openStore()
        try await analyseFirstScan(store, files: walked(4))
        try await store.writer.write { db in
            try db.execute(sql: "UPDATE photos SET pipeline_version = ? WHERE path = '/lib/0.jpg'", arguments: [PhotoAnalyzer.pipelineVersion - 1])
            try db.execute(sql: "UPDATE photos SET status = 'failed', error_kind = 'unreadable' WHERE path = '/lib/1.jpg'")
        }

        let (second, _) = try await store.startScan(root: "/lib")
        var files = walked(4)
        files[2].mtimeNanoseconds = 2
        let jobs = try await store.recordWalkBatch(scan: second, files: files, jobSize: 4)
        #expect(jobs.flatMap(\.photos).map(\.path).sorted() == ["/lib/0.jpg", "/lib/1.jpg", "/lib/2.jpg"])
        let scan = try #require(try await store.scan(id: second.id))
        #expect(scan.total == 4 && scan.done == 1 && scan.toAnalyse == 3 && scan.analysedAgain == 2, "the changed file is not counted as analysed again")
        #expect(RunCommand.plainCounts(total: 4, analysedNow: scan.toAnalyse, analysedAgain: scan.analysedAgain, failed: 0)
                == "1 new or changed, 2 analysed again, 1 unchanged, 0 could not be analysed")
        #expect(RunCommand.plainCounts(total: 4, analysedNow: 1, analysedAgain: 0, failed: 0) == "1 new or changed, 3 unchanged, 0 could not be analysed")
    }

    @Test("attempt tokens are never reused across a reopen")
    func tokensSurviveRestart() async throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var store = try await openStore()
        let (scan, _) = try await store.startScan(root: "/lib")
        let job = try #require(try await store.recordWalkBatch(scan: scan, files: walked(1), jobSize: 1).first)
        let before = try #require(try await store.recordDispatches([(job.jobID, "w")])[job.jobID])
        store = try await openStore()
        let recovered = try await store.recoverJobs()
        #expect(recovered.map(\.jobID) == [job.jobID])
        let after = try #require(try await store.recordDispatches([(job.jobID, "w")])[job.jobID])
        #expect(after > before)
        let stale = try await store.applyResults([ReceivedResult(result: result(job, attempt: before), workerID: "w", pipelineVersion: PhotoAnalyzer.pipelineVersion)])
        #expect(stale.duplicate == 1, "the pre-restart attempt no longer matches")
    }

    @Test("taking a job back is fenced by attempt, and requeue, split and fail each happen in one step")
    func takeBackFence() async throws {
        let store = try await CullStore.inMemory(on: BlockingQueue(label: "test", limit: 1))
        let (scan, _) = try await store.startScan(root: "/lib")
        let jobs = try await store.recordWalkBatch(scan: scan, files: walked(3), jobSize: 2)
        let (pair, single) = (jobs[0], jobs[1])
        #expect(pair.photos.count == 2 && single.photos.count == 1)

        var attempt = try #require(try await store.recordDispatches([(pair.jobID, "w")])[pair.jobID])
        let stale = try await store.takeBack([.init(jobID: pair.jobID, attempt: attempt - 1)], kind: .timeout, why: "t", suspect: false, maxDispatches: 2)
        #expect(stale.refused == 1 && stale.queue.isEmpty, "an old attempt's deadline takes nothing back")
        let first = try await store.takeBack([.init(jobID: pair.jobID, attempt: attempt)], kind: .timeout, why: "t", suspect: false, maxDispatches: 2)
        #expect(first.queue.map(\.jobID) == [pair.jobID] && first.refused == 0)
        let again = try await store.takeBack([.init(jobID: pair.jobID, attempt: attempt)], kind: .timeout, why: "t", suspect: false, maxDispatches: 2)
        #expect(again.refused == 1, "taking the same dispatch back twice does nothing the second time")

        attempt = try #require(try await store.recordDispatches([(pair.jobID, "w")])[pair.jobID])
        let split = try await store.takeBack([.init(jobID: pair.jobID, attempt: attempt)], kind: .workerLost, why: "t", suspect: true, maxDispatches: 2)
        #expect(split.split == [pair.jobID])
        #expect(split.queue.count == 2 && split.queue.allSatisfy { $0.photos.count == 1 && $0.runsAlone }, "one job per photo, each suspected")

        let lone = split.queue[0]
        for _ in 0..<2 {
            let token = try #require(try await store.recordDispatches([(lone.jobID, "w")])[lone.jobID])
            let outcome = try await store.takeBack([.init(jobID: lone.jobID, attempt: token)], kind: .workerLost, why: "it crashed", suspect: true, maxDispatches: 2)
            if outcome.failed == [lone.jobID] {
                #expect(outcome.scansToCheck == [scan.id])
            }
        }
        let failed = try await store.failures(scan: scan, limit: 10)
        #expect(failed.count == 1 && failed[0].kind == "worker_lost" && failed[0].message.contains("it crashed"))
        let counted = try #require(try await store.scan(id: scan.id))
        #expect(counted.done == 1 && counted.failed == 1)
    }

    @Test("features no photo has are refused before they are stored: EXIF texts past what a worker reads, among the others")
    func malformedFeatures() {
        let honest = Cull_V1_Features.with {
            $0.sha256 = Data(repeating: 1, count: 32); $0.width = 10; $0.height = 10
            $0.software = String(repeating: "\u{FFFD}", count: 4_095)  // 4 KiB of bytes that are no UTF-8, decoded
        }
        #expect(honest.malformation == nil)
        var hostile = honest
        hostile.software = String(repeating: "A", count: Cull_V1_Features.exifTextLimit + 1)
        #expect(hostile.malformation == "an EXIF software of 16385 bytes")
        hostile = honest
        hostile.modifyTime = String(repeating: "9", count: 1 << 20)
        #expect(hostile.malformation?.hasPrefix("an EXIF modify time of") == true)
        hostile = honest
        hostile.sha256 = Data(count: 5)
        #expect(hostile.malformation == "a SHA-256 of 5 bytes")
        hostile = honest
        hostile.detail = Data(count: 4_095)
        #expect(hostile.malformation == "a detail layout of 4095 bytes")
        hostile.detail = Data(count: DetailLayout.byteCount)
        #expect(hostile.malformation == nil)
    }

    @Test("an unwritable database path gets a message saying what to do")
    func unwritable() async throws {
        do {
            _ = try await CullStore.open(path: "/proc/cull-cannot-be-here/cull.sqlite", on: BlockingQueue(label: "t", limit: 1))
            Issue.record("opened a database under /proc")
        } catch let error as StoreError {
            #expect(error.description.contains("--db"))
        }
    }
}
