@testable import Coordinator
import Analysis
import Foundation
import Shared
import Testing

/// A benchmark, not a test: what a scan of a million photos does between its last outcome and
/// its stored groups, through a real SQLite store, as `Coordinator.finalizeIfComplete` does it:
/// the regroup check's digest, reading the rows (`groupingInput`), grouping with the store as the
/// feature source (window hashes and layouts read from SQLite in batches), and the fenced write
/// of the groups. `GroupingScaleBenchmark` stands in for the store with features worked out in
/// memory; this one says what the store's reads add to it.
///
/// Skipped unless CULL_BENCH_STORE names the database file and CULL_BENCH_STORE_ROWS the photo
/// count (with CULL_FEATURE_MODEL, as bench/grouping.sh sets it). A missing file is made first
/// from the same realistic rows (`RealisticLibrary`, every row's features as a worker sends
/// them, stored through the walk, dispatch and result fence the coordinator uses: about 6 GB
/// at a million), and kept for the next run; a file made for another count is refused. The
/// database is read into the page cache first, or with CULL_BENCH_STORE_COLD=1 dropped from it.
@Suite("Grouping through the store (benchmark)", .serialized, .timeLimit(.minutes(60)))
struct StoreGroupingBenchmark {
    static let environment = ProcessInfo.processInfo.environment
    static let path = environment["CULL_BENCH_STORE"]
    static let rows = Int(environment["CULL_BENCH_STORE_ROWS"] ?? "") ?? 0

    @Test("a finished scan of N realistic photos grouped from SQLite", .enabled(if: path != nil && rows > 0))
    func groupThroughStore() async throws {
        let path = try #require(Self.path)
        let model = try FeatureModel.load(try #require(Self.environment["CULL_FEATURE_MODEL"], "set CULL_FEATURE_MODEL"))
        var library = RealisticLibrary.generate(count: Self.rows, model: model)
        library.turnHues()
        let queue = BlockingQueue(label: "store-benchmark", limit: 2)
        let store = try await CullStore.open(path: path, on: queue)
        let clock = ContinuousClock()
        var scan = try await Self.finishedScan(in: store)
        if scan == nil {
            let made = try await clock.measure { scan = try await Self.store(library, in: store) }
            print("store grouping: \(Self.rows) rows stored through the walk, dispatch and result fence in \(Self.seconds(made)) "
                  + "(\(Self.fileMiB(path)) MiB with its WAL)")
        }
        let finished = try #require(scan)
        #expect(finished.total == Int64(Self.rows), "\(path) holds a scan of \(finished.total) photos, not \(Self.rows): delete it to make it again")
        guard finished.total == Int64(Self.rows) else { return }
        let rss = CandidateSearchBenchmark.peakRSS()
        let grouper = Grouper()
        let progress = GroupingProgress()
        let steps = StepTimer(progress)
        let cache = try Self.settlePageCache(path)
        // The steps of `Coordinator.finalizeIfComplete`, in its order, each timed.
        let start = clock.now
        let digest = try await store.groupingDigest(scan: finished, rules: "benchmark \(Grouper.rulesVersion)")
        let digested = clock.now
        let (photos, features) = try await store.groupingInput(scan: finished)
        let read = clock.now
        // On a queue of its own, as the coordinator's grouping queue.
        let groups = try await BlockingQueue(label: "grouping", limit: 1).run(timeout: .seconds(3600), operation: "grouping") {
            try grouper.groups(of: photos, features: features, progress: progress, shouldStop: { false })
        }
        let grouped = clock.now
        let stored = try await store.finalize(scan: finished, groups: groups, digest: nil)
        let end = clock.now
        let stepTimes = steps.stop()
        #expect(stored)
        print("store grouping \(Self.rows) photos (\(cache)): \(Self.seconds(end - start)) from the last outcome to stored groups: digest \(Self.seconds(digested - start)), "
              + "reading the rows \(Self.seconds(read - digested)), grouping \(Self.seconds(grouped - read)), storing \(groups.count) groups \(Self.seconds(end - grouped)); "
              + "peak RSS \(rss) MiB before (the library's recipes), \(CandidateSearchBenchmark.peakRSS()) MiB after")
        print("store grouping \(Self.rows) photos, seconds per step: "
              + stepTimes.map { "\($0.step.name) \(String(format: "%.2f", $0.seconds))" }.joined(separator: ", "))
        // The same score as the in-memory benchmark: planted families with a copy in the photo's group.
        let rowOf = Dictionary(uniqueKeysWithValues: photos.map { ($0.id, Self.row(of: $0.path)) })
        var groupOfRow: [Int: Int] = [:]
        for (index, group) in groups.enumerated() where group.kind != .similar {
            for member in group.members { if let row = rowOf[member.photoID] { groupOfRow[row] = index } }
        }
        var found = Set<Int32>(), families = Set<Int32>()
        for row in 0..<library.count where library.copyOf[row] >= 0 {
            let original = library.copyOf[row]
            families.insert(original)
            if let group = groupOfRow[row], group == groupOfRow[Int(original)] { found.insert(original) }
        }
        print("store grouping \(Self.rows) photos: planted families found (a copy in the photo's group): \(found.count)/\(families.count), \(digest.prefix(8))")
        #expect(!found.isEmpty)
    }

    /// The store's finished walk of /lib whose every photo has its outcome, if there is one. A
    /// run before this one finalized it: it is set running again, so that it is grouped and its
    /// groups are written again as they were the first time (`finalize` replaces them).
    static func finishedScan(in store: CullStore) async throws -> ScanRecord? {
        if let done = try await store.latestDoneScan() {
            try await store.writer.write { db in
                try db.execute(sql: "UPDATE scans SET state = ?, finished_at = NULL, grouping_digest = NULL WHERE id = ?",
                               arguments: [ScanState.running, done.id])
            }
        }
        let running = try await store.runningScans().first
        guard let scan = running, try await store.isComplete(scanID: scan.id) else { return nil }
        return scan
    }

    /// Stores every row of `library` as a walked file of /lib with the outcome a worker would
    /// send, a batch of walked files and their jobs' results at a time.
    static func store(_ library: RealisticLibrary, in store: CullStore) async throws -> ScanRecord {
        let (scan, _) = try await store.startScan(root: "/lib")
        let batch = 20_000
        for first in stride(from: 0, to: library.count, by: batch) {
            let rows = first..<min(library.count, first + batch)
            // Each photo its own file (a distinct inode): two paths of one file are never copies.
            let files = rows.map { WalkedFile(path: "/lib/\($0).jpg", size: 4_000_000, mtimeNanoseconds: 1, device: 1, inode: Int64($0 + 1)) }
            let jobs = try await store.recordWalkBatch(scan: scan, files: files, jobSize: 500)
            let attempts = try await store.recordDispatches(jobs.map { ($0.jobID, "bench") })
            let results = jobs.map { job in
                ReceivedResult(result: .with { result in
                    result.jobID = job.jobID
                    result.generation = job.generation
                    result.attempt = attempts[job.jobID] ?? 0
                    result.outcomes = job.photos.map { photo in
                        .with {
                            $0.photoID = photo.photoID
                            $0.features = features(library, row: row(of: photo.path))
                        }
                    }
                }, workerID: "bench", pipelineVersion: PhotoAnalyzer.pipelineVersion)
            }
            let tally = try await store.applyResults(results)
            try #require(tally.applied == jobs.count, "every result applied: \(tally)")
        }
        try await store.markWalkComplete(scan: scan)
        return try #require(try await store.scan(id: scan.id))
    }

    /// What a worker sends for `row`: the library's hashes, layout and chroma, a digest of its own.
    static func features(_ library: RealisticLibrary, row: Int) -> Cull_V1_Features {
        let light = library.lightPhoto(row)
        return .with {
            $0.sha256 = Data((0..<4).flatMap { withUnsafeBytes(of: UInt64(row) &* 0x9E37_79B9_7F4A_7C15 &+ UInt64($0)) { Array($0) } })
            $0.phash = light.pHash
            $0.width = UInt32(light.width)
            $0.height = UInt32(light.height)
            $0.fileSize = 4_000_000
            $0.format = "jpeg"
            $0.sharpness = 1
            $0.windowPhash = library.windows(row)
            $0.thumbnail = Data(library.thumbnail(row))
            $0.chroma = Data(library.chroma(row))
            $0.mirrorPhash = light.mirrorPHash ?? 0
            if let box = light.contentBox, let phash = light.contentPHash {
                $0.content = .with { $0.x = Float(box.x); $0.y = Float(box.y); $0.width = Float(box.width); $0.height = Float(box.height); $0.phash = phash }
            }
        }
    }

    /// Puts the database in a known state before the measured steps: with
    /// CULL_BENCH_STORE_COLD=1 out of the page cache (as root; as bench/e2e.sh's cold runs),
    /// else read through once, wholly in it. Says which.
    static func settlePageCache(_ path: String) throws -> String {
        if environment["CULL_BENCH_STORE_COLD"] == "1" {
            sync()
            guard let drop = FileHandle(forWritingAtPath: "/proc/sys/vm/drop_caches") else { return "page cache kept: not root" }
            try drop.write(contentsOf: Data("3\n".utf8))
            try drop.close()
            return "page cache dropped"
        }
        for file in [path, path + "-wal"] {
            guard let handle = FileHandle(forReadingAtPath: file) else { continue }
            while let chunk = try handle.read(upToCount: 8 << 20), !chunk.isEmpty {}
            try handle.close()
        }
        return "database in the page cache"
    }

    /// The library row a path of /lib names.
    static func row(of path: String) -> Int {
        Int(path.dropFirst("/lib/".count).dropLast(".jpg".count)) ?? -1
    }

    static func seconds(_ duration: Duration) -> String {
        String(format: "%.2f s", Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18)
    }

    static func fileMiB(_ path: String) -> Int {
        [path, path + "-wal"].compactMap { try? FileManager.default.attributesOfItem(atPath: $0)[.size] as? Int }.reduce(0, +) >> 20
    }
}
