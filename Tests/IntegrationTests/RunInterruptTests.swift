import Foundation
import Testing

/// `cull run` stopped midway, as a person does it (Ctrl-C in a terminal: SIGINT to the whole
/// foreground process group) and as a supervisor does it (SIGTERM to `cull` alone): no cull
/// process and no temporary folder may be left behind, and the exit status says it was
/// interrupted.
@Suite("cull run interrupted", .serialized, .timeLimit(.minutes(3)))
struct RunInterruptTests {
    /// A library whose reads take 2 s each (fault injection), so the scan is surely mid-way
    /// when the signal comes.
    func prepare() async throws -> (scratch: Scratch, library: String, environment: [String: String]) {
        let scratch = try Scratch()
        let library = scratch.path + "/library"
        // 24 photos at 2 s a read keep two workers busy for 20 s or more: a poll of the workers
        // that the loaded CI host leaves waiting for several seconds still finds them running
        // (with 4 photos the run was over in 6 s, before one such poll came; a test that
        // passes signals as soon as it sees them, so the count costs it nothing).
        _ = try await writeLibrary(to: library, scenes: 24, width: 160, height: 120, edits: [.recompressed], extras: false)
        let tmp = scratch.path + "/tmp"
        try FileManager.default.createDirectory(atPath: tmp, withIntermediateDirectories: true)
        return (scratch, library, ["TMPDIR": tmp, "CULL_WORKER_FAULTS": "read-delay-ms=2000", "CULL_POOL_WATCHDOG_MS": "1000"])
    }

    @Test("Ctrl-C in a terminal stops cull run and its workers and removes its private folder")
    func controlC() async throws {
        let (scratch, library, environment) = try await prepare()
        // A real pseudo-terminal: cull is its foreground process group, and the ^C written to the
        // master is turned into SIGINT for that whole group by the kernel, as a terminal does.
        let script = """
            import os, pty, sys, time, json, select
            pid, fd = pty.fork()
            if pid == 0:
                os.execv(sys.argv[1], sys.argv[1:])
            deadline = time.time() + 60
            marker = "run-%d-" % pid
            def workers():
                found = []
                for p in os.listdir("/proc"):
                    if p.isdigit():
                        try:
                            if marker in open("/proc/%s/cmdline" % p, "rb").read().decode(errors="replace"): found.append(int(p))
                        except OSError: pass
                return found
            out = b""
            while time.time() < deadline and len(workers()) < 2:
                if select.select([fd], [], [], 0.05)[0]:
                    try: out += os.read(fd, 4096)
                    except OSError: break
            seen = workers()
            time.sleep(0.5)  # let the workers say HELLO and take jobs
            os.write(fd, b"\\x03")
            while time.time() < deadline:
                if select.select([fd], [], [], 0.1)[0]:
                    try:
                        chunk = os.read(fd, 4096)
                        if not chunk: break
                        out += chunk
                    except OSError: break
            _, status = os.waitpid(pid, 0)
            print(json.dumps({"pid": pid, "workers": seen, "status": os.waitstatus_to_exitcode(status), "output": out.decode(errors="replace")}))
            """
        let cull = try Binaries.url("cull").path
        let result = try await runCommand("python3", ["-c", script, cull, "run", library, "--workers", "2", "--db", scratch.path + "/run.sqlite"],
                                          environment: environment, in: scratch.path, timeout: .seconds(90))
        struct Report: Decodable { var pid: Int32; var workers: [Int32]; var status: Int32; var output: String }
        let report = try JSONDecoder().decode(Report.self, from: Data(result.stdout.utf8))
        #expect(report.workers.count == 2, "both workers were running when ^C came: \(report.output)")
        #expect(report.status == 130, "interrupted runs exit 130: \(report.output)")
        #expect(report.output.contains("interrupted"), "it says what happened: \(report.output)")
        #expect(try await noneLeft(workers: report.workers, runPID: report.pid))
        #expect(try FileManager.default.contentsOfDirectory(atPath: environment["TMPDIR"]!).isEmpty, "no cull-run-* folder is left")
    }

    @Test("SIGTERM to cull run alone stops its workers too and removes its private folder")
    func sigterm() async throws {
        let (scratch, library, environment) = try await prepare()
        let run = try Child("cull", ["run", library, "--workers", "2", "--db", scratch.path + "/run.sqlite"],
                            environment: environment, in: scratch.path)
        var workers: [Int32] = []
        try? await waitUntil("the workers started", timeout: .seconds(60)) {
            workers = workerPIDs(runPID: run.pid)
            return workers.count == 2
        }
        #expect(workers.count == 2, "the workers started: \(run.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: environment["TMPDIR"]!).count == 1, "the private folder exists while it runs")
        run.signal(SIGTERM)
        let status = await run.wait(timeout: .seconds(30))
        #expect(status == 130, "stderr: \(run.stderr)")
        #expect(try await noneLeft(workers: workers, runPID: run.pid))
        #expect(try FileManager.default.contentsOfDirectory(atPath: environment["TMPDIR"]!).isEmpty, "no cull-run-* folder is left")
    }

    /// The pids of `cull run`'s workers (their ids are "run-PID-N").
    func workerPIDs(runPID: Int32) -> [Int32] {
        let marker = "run-\(runPID)-"
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap(Int32.init).filter { pid in
            guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return false }
            return String(decoding: data.map { $0 == 0 ? 32 : $0 }, as: UTF8.self).contains(marker)
        }
    }

    /// True once no worker of the run is alive (zombies count as gone), within 30 s.
    func noneLeft(workers: [Int32], runPID: Int32) async throws -> Bool {
        do {
            try await waitUntil("the workers gone", timeout: .seconds(30)) {
                let alive = workers.filter { pid in
                    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return false }
                    return !stat.contains(") Z ")
                } + workerPIDs(runPID: runPID)
                return alive.isEmpty
            }
            return true
        } catch is HarnessError {
            return false
        }
    }
}
