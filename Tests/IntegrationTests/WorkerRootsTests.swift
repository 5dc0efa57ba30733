import Analysis
import Foundation
import Shared
import Testing

/// A worker given `--root` folders opens nothing outside them, whatever a coordinator (or
/// anything that reaches the work endpoint) names; and a job cannot raise its limits.
@Suite("Worker roots", .serialized, .timeLimit(.minutes(3)))
struct WorkerRootsTests {
    @Test("with --root: outside paths, links out, relative and .. paths are unreadable and never opened; --path-map reads a coordinator's path here; a job cannot raise the file-size cap")
    func roots() async throws {
        let scratch = try Scratch()
        let root = scratch.path + "/lib", outside = scratch.path + "/private"
        let inside = try await writeLibrary(to: root, scenes: 1, width: 160, height: 120, edits: [.original], extras: false)
        let secret = try await writeLibrary(to: outside, scenes: 1, width: 160, height: 120, edits: [.original], extras: false)
        let photo = try #require(inside.first?.path), secretPhoto = try #require(secret.first?.path)
        let relative = String(photo.dropFirst(root.count + 1))
        let link = root + "/link-out.jpg"
        #expect(symlink(secretPhoto, link) == 0)
        let big = root + "/big.jpg"  // 2 MiB: over the worker's 1 MiB cap, under the job's 1 TiB
        #expect(FileManager.default.createFile(atPath: big, contents: Data(repeating: 0xFF, count: 2 << 20)))

        let router = try FakeRouter()
        let worker = try Child("cull-worker", ["--connect", router.endpoint, "--id", "rooted", "--heartbeat-ms", "100",
                                               "--root", root, "--path-map", "/volume1/photos=\(root)", "--max-file-mb", "1"],
                               in: scratch.path)
        defer { worker.signal(SIGKILL) }
        let identity = try #require(await router.awaitHello(timeout: .seconds(10)), "HELLO: \(worker.stderr)")
        let paths: [Int64: String] = [
            1: photo, 2: secretPhoto, 3: link, 4: relative, 5: root + "/../private/" + String(secretPhoto.dropFirst(outside.count + 1)),
            6: "/volume1/photos/" + relative, 7: "/etc/shadow", 8: big, 9: "/volume1/photos2/" + relative,
        ]
        router.socket.send([identity] + WireCodec.encode(.job(.with { job in
            job.jobID = 77; job.generation = 1; job.attempt = 1; job.fetchTimeoutMs = 10_000
            job.options = .with { $0.maxFileBytes = 1 << 40 }
            job.photos = paths.sorted { $0.key < $1.key }.map { id, path in .with { $0.photoID = id; $0.path = path } }
        })))
        let result = try #require(await router.awaitResult(jobID: 77, timeout: .seconds(30)), "a result: \(worker.stderr)")
        let outcomes = Dictionary(uniqueKeysWithValues: result.outcomes.map { ($0.photoID, $0) })
        #expect(outcomes.count == paths.count)
        for id: Int64 in [1, 6] {
            #expect(outcomes[id]?.features.width == 160, "\(paths[id]!): analysed: \(String(describing: outcomes[id]))")
        }
        let refusals: [Int64: String] = [2: "outside the folders", 3: "outside the folders", 4: "not an absolute path",
                                         5: ". or .. parts", 7: "outside the folders", 9: "No such file"]
        for (id, reason) in refusals {
            let failure = outcomes[id]?.failure
            #expect(failure?.kind == .unreadable && failure?.message.contains(reason) == true, "\(paths[id]!): \(String(describing: failure))")
        }
        #expect(outcomes[8]?.failure.kind == .tooLarge, "the worker's 1 MiB cap holds: \(String(describing: outcomes[8]))")
        #expect(worker.stderr.contains("reading only under"))
        await router.close()
    }
}
