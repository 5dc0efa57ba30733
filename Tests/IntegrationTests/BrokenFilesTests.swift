import Analysis
import CZeroMQ
import Foundation
import GRDB
import Logging
import Shared
import Testing

/// Issue 3: no input file can crash or hang a worker. A library of broken files (and a few good
/// ones, progressive and CMYK among them) goes through a real coordinator and one real worker;
/// every file gets its failure kind, with a message naming it, and the worker lives through all.
@Suite("Broken files", .serialized, .timeLimit(.minutes(5)))
struct BrokenFilesTests {
    @Test("one scan of the broken-file corpus: every file its kind, good photos analysed and grouped, one worker alive throughout")
    func scan() async throws {
        let cluster = try Cluster(serveArguments: ["--fetch-timeout", "2"])
        let corpus = try await BrokenCorpus.write(to: cluster.scratch.path + "/library")
        try await Self.requireUnreadable(corpus.locked, in: cluster.scratch.path)
        try cluster.startServe()
        let worker = try Self.startWorker(["--connect", cluster.work, "--id", "broken-worker", "--heartbeat-ms", "200",
                                           "--compute-threads", "1", "--fetch-threads", "2"], in: cluster.scratch.path)
        cluster.workers[0] = worker  // killed with the cluster if the test fails early
        try await cluster.waitForWorkers(1)

        let scan = try await cluster.startScan(corpus.root)
        // Stops waiting at once if the worker dies: with no other worker the scan would stall.
        let done = try await cluster.waitFor(scan: scan, timeout: .seconds(90)) { $0.state != "running" || !worker.process.isRunning }
        try #require(worker.process.isRunning, "the worker died mid-scan: \(worker.stderr.suffix(3000))")
        #expect(done.state == "done", "serve: \(cluster.serve?.stderr.suffix(3000) ?? "")")

        let rows = try await cluster.query { db in
            try Row.fetchAll(db, sql: "SELECT path, status, error_kind, error_message FROM photos").map {
                PhotoRow(path: $0["path"], status: $0["status"], kind: $0["error_kind"], message: $0["error_message"])
            }
        }
        let byPath = Dictionary(rows.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })

        // Every broken file (the dangling link and the FIFO too): failed, with its kind and a
        // message naming it.
        for item in corpus.cases {
            let row = byPath[item.path]
            #expect(row?.status == "failed", "\(item.name): \(String(describing: row))")
            #expect(row.flatMap(\.kind).map(item.kinds.contains) == true, "\(item.name): expected \(item.kinds.sorted()), got \(String(describing: row))")
            #expect(row?.message?.contains(item.path) == true, "\(item.name)'s message names the file: \(String(describing: row))")
            if let cause = item.cause {
                #expect(row?.message?.contains(cause) == true, "\(item.name)'s message names the cause (\(cause)): \(String(describing: row))")
            }
        }
        // A folder named like a photo is a folder: walked into, never a photo row itself.
        #expect(byPath[corpus.folder] == nil, "folder.jpg is not a photo")

        // The good photos (progressive, YCCK and Adobe CMYK among them) are analysed, the copies grouped.
        for path in corpus.good {
            #expect(byPath[path]?.status == "analysed", "\(path): \(String(describing: byPath[path]))")
        }
        let expected = Set(corpus.cases.map(\.path)).union(corpus.good)
        #expect(Set(byPath.keys) == expected, "the walk listed exactly the corpus")
        #expect(done.total == Int64(expected.count))
        let groups = try await cluster.groupsCSV(scan: scan)
        #expect(groups.partition == [Set(corpus.copies), Set(corpus.encodings)], "groups: \(groups.groupOf)")

        // One worker did all of it and never went away: the process started at the beginning is
        // still running (a Child is one process; it never exited, so it never restarted), it is
        // the only worker the coordinator knows, no job had to be sent twice (a lost worker or a
        // missed deadline would have re-dispatched it), and no read is stuck in the kernel.
        #expect(await worker.wait(timeout: .milliseconds(50)) == nil, "the worker exited: \(worker.stderr.suffix(3000))")
        let reply = try #require(try await cluster.status())
        #expect(reply.workers.map(\.workerID) == ["broken-worker"])
        // Every photo once, and the raw file a second time: matched on its preview, it is
        // verified from its sensor data before its group is stored.
        #expect(reply.workers.first?.photosDone == UInt64(expected.count + 1), "every photo analysed by this one session")
        // No read is left stuck (the FIFO is refused at open, it does not time out).
        #expect(reply.workers.first?.abandonedFetches == 0)
        let dispatches = try await cluster.query { db in try Int.fetchOne(db, sql: "SELECT MAX(dispatches) FROM jobs") }
        #expect(dispatches == 1, "no job was dispatched twice")
        let lost = rows.filter { ["worker_lost", "internal", "timeout"].contains($0.kind ?? "") }
        #expect(lost.isEmpty, "\(lost)")
        #expect(!worker.stderr.contains("cooperative pool stalled"), "worker: \(worker.stderr.suffix(3000))")

        // And it shuts down cleanly.
        #expect(await worker.stop() == 0, "worker: \(worker.stderr.suffix(3000))")
        #expect(await cluster.serve?.stop() == 0)
    }

    @Test("the worker, asked for every file directly (FIFO, dangling link and folder too), answers each in one job and lives on")
    func workerDirectly() async throws {
        let scratch = try Scratch()
        let corpus = try await BrokenCorpus.write(to: scratch.path + "/library")
        try await Self.requireUnreadable(corpus.locked, in: scratch.path)

        // This test plays the coordinator, so it can ask for paths the walk never lists.
        let context = try ZMQContext()
        let router = try SocketThread(name: "it.router", context: context, type: .router, logger: Logger(label: "it")) { socket in
            try socket.setOption(ZMQ_LINGER, Int32(0))
            try socket.bind("tcp://127.0.0.1:*")
        }
        let endpoint = try #require(router.boundEndpoints.first)
        let worker = try Self.startWorker(["--connect", endpoint, "--id", "broken-direct", "--heartbeat-ms", "100",
                                           "--compute-threads", "1", "--fetch-threads", "2"], in: scratch.path)
        defer { worker.signal(SIGKILL) }

        let paths = corpus.cases.map(\.path) + [corpus.folder] + corpus.good
        let job = Cull_V1_Job.with { job in
            job.jobID = 1; job.generation = 1; job.attempt = 1
            job.fetchTimeoutMs = 1000; job.deadlineMs = 120_000
            job.photos = paths.enumerated().map { index, path in .with { $0.photoID = Int64(index + 1); $0.path = path } }
        }
        let started = ContinuousClock.now
        let result = await firstMessage(in: router.inbox, timeout: .seconds(90)) { message -> Cull_V1_Result? in
            guard message.count == 3, let command = try? WireCodec.decode(message.dropFirst()) else { return nil }
            switch command {
            case .hello:
                router.send([message[0]] + WireCodec.encode(.welcome(.with { $0.heartbeatIntervalMs = 100; $0.heartbeatLiveness = 600 })))
                router.send([message[0]] + WireCodec.encode(.job(job)))
                return nil
            case .result(let result):
                return result
            default:
                return nil
            }
        }
        let elapsed = ContinuousClock.now - started
        let outcomes = try #require(result?.outcomes, "no result in 90 s; worker: \(worker.stderr.suffix(3000))")
        #expect(outcomes.count == paths.count)
        // A read left hanging (the FIFO) would hold the result for the job's deadline or longer; the fetch
        // timeout ends it in a second. Half the deadline tells the two apart on a loaded machine
        // (a bound of 15 s, the whole test run's integration tests beside it, was once 16.5 s).
        #expect(elapsed < .seconds(60), "nothing hung: \(elapsed)")
        let byPath = Dictionary(outcomes.map { (paths[Int($0.photoID) - 1], $0) }, uniquingKeysWith: { first, _ in first })

        var expectations = corpus.cases.map { ($0.name, $0.path, $0.kinds, $0.cause) }
        expectations.append(("folder.jpg", corpus.folder, ["unreadable"], "not a regular file"))
        for (name, path, kinds, cause) in expectations {
            let outcome = byPath[path]
            guard case .failure(let failure)? = outcome?.result else {
                Issue.record("\(name): expected \(kinds.sorted()), got \(String(describing: outcome))")
                continue
            }
            #expect(kinds.contains(failure.kind.storageName), "\(name): expected \(kinds.sorted()), got \(failure.kind.storageName): \(failure.message)")
            #expect(failure.message.contains(path), "\(name)'s message names the file: \(failure.message)")
            if let cause {
                #expect(failure.message.contains(cause), "\(name)'s message names the cause (\(cause)): \(failure.message)")
            }
        }
        for path in corpus.good {
            guard case .features(let features)? = byPath[path]?.result else {
                Issue.record("\(path) was not analysed: \(String(describing: byPath[path]))")
                continue
            }
            #expect(features.width == 320 && features.height == 240, "\(path)")
        }

        // Alive after all of it. The FIFO's open() is still blocked in the kernel (one abandoned
        // fetch, far from --max-stuck-reads); a writer releases it, then the worker stops cleanly.
        #expect(await worker.wait(timeout: .milliseconds(500)) == nil, "the worker exited: \(worker.stderr.suffix(3000))")
        let writer = open(corpus.fifo, O_WRONLY | O_NONBLOCK)
        if writer >= 0 { close(writer) }
        #expect(await worker.stop() == 0, "worker: \(worker.stderr.suffix(3000))")
        #expect(!worker.stderr.contains("cooperative pool stalled"), "worker: \(worker.stderr.suffix(3000))")
        await router.shutdown()
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread { context.terminate(); done.resume() }
        }
    }

    // MARK: - Helpers

    struct PhotoRow: Sendable, CustomStringConvertible {
        let path: String
        let status: String
        let kind: String?
        let message: String?
        var description: String { "\(status) \(kind ?? "-"): \(message ?? "-")" }
    }

    /// Root can read a chmod 000 file (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH). Running as root,
    /// the worker starts under setpriv without those capabilities (nor can it regain them: they
    /// leave the bounding set), so the file is as unreadable to it as to anyone else.
    static let withoutDACOverride = ["--bounding-set", "-dac_override,-dac_read_search", "--inh-caps", "-dac_override,-dac_read_search"]

    static func startWorker(_ arguments: [String], in directory: String) throws -> Child {
        let environment = ["CULL_POOL_WATCHDOG_MS": "1000"]
        guard getuid() == 0 else { return try Child("cull-worker", arguments, environment: environment, in: directory) }
        // setpriv execs the worker: the child's pid is the worker's.
        return try Child("/usr/bin/setpriv", withoutDACOverride + [try Binaries.url("cull-worker").path] + arguments,
                         environment: environment, in: directory)
    }

    /// The chmod 000 file really is unreadable to a process started like the worker.
    static func requireUnreadable(_ path: String, in directory: String) async throws {
        let probe = getuid() == 0
            ? try await runCommand("/usr/bin/setpriv", withoutDACOverride + ["/bin/cat", path], in: directory, timeout: .seconds(10))
            : try await runCommand("/bin/cat", [path], in: directory, timeout: .seconds(10))
        try #require(probe.status != 0 && probe.stderr.contains("Permission denied"), "\(path) is readable: \(probe)")
    }
}

/// The broken files of issue 3, and good photos to go with them, written into one folder.
struct BrokenCorpus: Sendable {
    struct Case: Sendable {
        let name: String
        let path: String
        /// The failure kinds (storage names) the file may get.
        let kinds: Set<String>
        /// A part of the message that names the cause, where it is stable.
        let cause: String?
    }

    let root: String
    let cases: [Case]
    let locked: String
    let fifo: String
    /// A folder named like a photo, holding one good photo.
    let folder: String
    /// Two byte-identical copies of one photo.
    let copies: [String]
    /// One picture as baseline, progressive, Adobe YCCK and Adobe CMYK JPEG, a 16-bit TIFF and a DNG: one group.
    let encodings: [String]
    /// Every photo that must be analysed.
    let good: [String]

    /// Writes the corpus on a thread of its own (encoding is CPU work; see `writeLibrary`).
    static func write(to root: String) async throws -> BrokenCorpus {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Result { try make(root) }) }
        }
    }

    private static func make(_ root: String) throws -> BrokenCorpus {
        let files = FileManager.default
        try files.createDirectory(atPath: root, withIntermediateDirectories: true)
        func write(_ name: String, _ bytes: [UInt8]) throws -> String {
            let path = root + "/" + name
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            return path
        }
        let (width, height) = (320, 240)
        let photo = SyntheticPhoto.make(seed: 301, width: width, height: height)
        let jpeg = try JPEGEncoder.encode(rgb: photo.pixels, width: width, height: height, quality: 90)
        var cases: [Case] = []
        func add(_ name: String, _ bytes: [UInt8], _ kind: String, cause: String? = nil) throws {
            cases.append(Case(name: name, path: try write(name, bytes), kinds: [kind], cause: cause))
        }

        // Truncated: inside the header's tables, then a quarter, half, three quarters and nearly all
        // of the way through the scan.
        for cut in [100, jpeg.count / 4, jpeg.count / 2, jpeg.count * 3 / 4, jpeg.count - 64] {
            try add("cut-\(cut).jpg", Array(jpeg.prefix(cut)), "corrupt", cause: "Premature end")
        }
        try add("empty.jpg", [], "corrupt", cause: "empty")
        var random = SplitMix64(seed: 303)
        try add("noise.jpg", [0xFF, 0xD8, 0xFF, 0xE0] + (0..<65_536).map { _ in UInt8(truncatingIfNeeded: random.next()) }, "corrupt")

        // PNGs: a wrong CRC on the header chunk, on the first data chunk; a 60000x60000 header
        // with a correct CRC.
        guard let png = PNGDecoder.encode(rgb: photo.pixels, width: width, height: height) else { throw HarnessError("PNG encoding failed") }
        var badHeader = png
        badHeader[29] ^= 0xFF  // IHDR's CRC: 8 signature + 4 length + 4 type + 13 data
        try add("bad-crc-ihdr.png", badHeader, "corrupt", cause: "CRC")
        var badData = png
        guard let idat = (8..<(png.count - 4)).first(where: { png[$0..<($0 + 4)].elementsEqual(Array("IDAT".utf8)) }) else {
            throw HarnessError("no IDAT chunk")
        }
        let idatLength = Int(png[idat - 4]) << 24 | Int(png[idat - 3]) << 16 | Int(png[idat - 2]) << 8 | Int(png[idat - 1])
        badData[idat + 4 + idatLength] ^= 0xFF  // the first IDAT's CRC
        try add("bad-crc-idat.png", badData, "corrupt", cause: "CRC")
        var hugePNG = png
        hugePNG.replaceSubrange(16..<24, with: [0, 0, 0xEA, 0x60, 0, 0, 0xEA, 0x60])
        let crc = crc32(Array(hugePNG[12..<29]))
        hugePNG.replaceSubrange(29..<33, with: [UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)])
        try add("huge.png", hugePNG, "too_large", cause: "60000x60000")

        var hugeJPEG = jpeg
        guard let sof = (2..<(jpeg.count - 9)).first(where: { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xC0 }) else { throw HarnessError("no SOF0") }
        hugeJPEG.replaceSubrange((sof + 5)..<(sof + 9), with: [0xEA, 0x60, 0xEA, 0x60])
        try add("huge.jpg", hugeJPEG, "too_large", cause: "60000x60000")
        try add("notes.jpg", Array("Shopping list: milk, eggs, film.\n".utf8), "unsupported", cause: "not a recognised image format")

        // TIFFs: cut halfway through the pixels, a directory offset past the end, a 60000x60000
        // header.
        let tiff = SampleTIFF.encode(photo)
        try add("cut.tif", Array(tiff.prefix(tiff.count / 2)), "corrupt", cause: "TIFF data is damaged")
        var lostDirectory = tiff
        lostDirectory[4] = 0xF0
        try add("lost-directory.tif", lostDirectory, "corrupt", cause: "TIFF header or first directory is unreadable")
        let hugeTIFF = SampleTIFF.encode(RGBImage(width: 16, height: 16, pixels: [UInt8](repeating: 90, count: 16 * 16 * 3)))
        try add("huge.tif", hugeTIFF.replacing(entry: 256, with: 60_000).replacing(entry: 257, with: 60_000), "too_large", cause: "60000x60000")
        // A raw file cut halfway through its sensor data.
        let dng = try SampleDNG.encode(photo, options: SampleDNG.Options(preview: nil))
        try add("cut.dng", Array(dng.prefix(dng.count / 2)), "corrupt", cause: "raw data")

        let locked = try write("locked.jpg", jpeg)
        guard chmod(locked, 0) == 0 else { throw HarnessError("chmod 000 \(locked) failed") }
        cases.append(Case(name: "locked.jpg", path: locked, kinds: ["unreadable"], cause: "Permission denied"))

        let gone = root + "/gone.jpg"
        try files.createSymbolicLink(atPath: gone, withDestinationPath: root + "/no-such-photo.jpg")
        cases.append(Case(name: "gone.jpg", path: gone, kinds: ["unreadable"], cause: "No such file or directory"))
        let fifo = root + "/fifo.jpg"
        guard mkfifo(fifo, 0o644) == 0 else { throw HarnessError("mkfifo \(fifo) failed") }
        cases.append(Case(name: "fifo.jpg", path: fifo, kinds: ["unreadable"], cause: "named pipe"))

        // Good photos.
        let folder = root + "/folder.jpg"
        try files.createDirectory(atPath: folder, withIntermediateDirectories: false)
        let inside = SyntheticPhoto.make(seed: 302, width: width, height: height)
        let insidePath = try write("folder.jpg/inside.jpg", try JPEGEncoder.encode(rgb: inside.pixels, width: width, height: height, quality: 90))
        let copies = [try write("copy-1.jpg", jpeg), try write("copy-2.jpg", jpeg)]
        let scene = SyntheticPhoto.make(seed: 304, width: width, height: height)
        var encodings: [String] = []
        for (name, options) in [("scene-baseline.jpg", JPEGEncoder.Options(quality: 90)),
                                ("scene-progressive.jpg", JPEGEncoder.Options(quality: 90, progressive: true)),
                                ("scene-ycck.jpg", JPEGEncoder.Options(quality: 90, colorSpace: .ycck)),
                                ("scene-cmyk.jpg", JPEGEncoder.Options(quality: 90, colorSpace: .adobeCMYK))] {
            encodings.append(try write(name, try JPEGEncoder.encode(rgb: scene.pixels, width: width, height: height, options: options)))
        }
        // The same picture as a 16-bit tiled TIFF export: grouped with its JPEGs.
        encodings.append(try write("scene-export.tif", SampleTIFF.encode(scene, layout: SampleTIFF.Layout(bitsPerSample: 16, tileSide: 64))))
        // And the camera's raw file of it (with its preview: analysed from it, then verified from the sensor data).
        encodings.append(try write("scene-raw.dng", try SampleDNG.encode(scene, options: SampleDNG.Options(preview: (160, 120)))))
        return BrokenCorpus(root: root, cases: cases, locked: locked, fifo: fifo, folder: folder, copies: copies,
                            encodings: encodings, good: copies + encodings + [insidePath])
    }

    /// PNG's CRC-32 (ISO 3309), over a chunk's type and data.
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return crc ^ 0xFFFF_FFFF
    }
}

extension Array where Element == UInt8 {
    /// A little-endian TIFF whose first directory's LONG entry `tag` holds `value` instead.
    func replacing(entry tag: UInt16, with value: UInt32) -> [UInt8] {
        var bytes = self
        let directory = Int(bytes[4]) | Int(bytes[5]) << 8 | Int(bytes[6]) << 16 | Int(bytes[7]) << 24
        let count = Int(bytes[directory]) | Int(bytes[directory + 1]) << 8
        for index in 0..<count {
            let entry = directory + 2 + 12 * index
            guard Int(bytes[entry]) | Int(bytes[entry + 1]) << 8 == Int(tag) else { continue }
            for byte in 0..<4 { bytes[entry + 8 + byte] = UInt8(truncatingIfNeeded: value >> (8 * byte)) }
        }
        return bytes
    }
}
