import Analysis
import Foundation
import Shared
import Synchronization
import Testing

/// Starts the real `cull` and `cull-worker` binaries for tests, with deadlines on every wait.
enum Binaries {
    /// The build folder holding the test bundle also holds the products (`swift build` first).
    static var directory: URL {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
    }

    static func url(_ name: String) throws -> URL {
        let url = directory.appendingPathComponent(name)
        guard FileManager.default.isExecutableFile(atPath: url.path) else {
            throw HarnessError("\(url.path) is missing: run `swift build` before `swift test` (scripts/test.sh does)")
        }
        return url
    }
}

struct HarnessError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A child process whose output goes to files (no pipe can fill up and stall it).
final class Child: Sendable {
    let process: Process
    let stdoutPath: String
    let stderrPath: String
    private struct ExitState {
        var status: Int32?
        var waiters: [UUID: CheckedContinuation<Int32?, Never>] = [:]
        var cancelled: Set<UUID> = []
    }

    private let exited = Mutex(ExitState())

    init(_ executable: String, _ arguments: [String], environment: [String: String] = [:], in directory: String) throws {
        let id = UUID().uuidString.prefix(8)
        // Output files are named after the program, not its path (`/usr/bin/setpriv`).
        let name = executable.split(separator: "/").last.map(String.init) ?? executable
        stdoutPath = "\(directory)/\(name)-\(id).out"
        stderrPath = "\(directory)/\(name)-\(id).err"
        guard FileManager.default.createFile(atPath: stdoutPath, contents: nil),
              FileManager.default.createFile(atPath: stderrPath, contents: nil) else {
            throw HarnessError("cannot create output files in \(directory)")
        }
        process = Process()
        process.executableURL = executable.contains("/") || executable == "python3"
            ? URL(fileURLWithPath: executable == "python3" ? "/usr/bin/env" : executable)
            : try Binaries.url(executable)
        let arguments = executable == "python3" ? ["python3"] + arguments : arguments
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        // The daemons read /etc/cull/cull.env (as root) unless told otherwise: tests take only
        // the settings they give.
        env["CULL_CONFIG"] = "none"
        env.merge(environment) { $1 }
        process.environment = env
        process.standardInput = FileHandle.nullDevice
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: stdoutPath))
        let errors = try FileHandle(forWritingTo: URL(fileURLWithPath: stderrPath))
        // The child gets copies; ours are closed once it runs. Kept open (the Process holds
        // them), two descriptors leaked per child: a whole test run reached 1,700 open
        // descriptors, and past about 1,300 Foundation's Process.run reads past the end of its
        // /proc/self/fd listing and can crash (swift-corelibs-foundation PR #5472, not in 6.3.1).
        defer {
            try? output.close()
            try? errors.close()
        }
        process.standardOutput = output
        process.standardError = errors
        process.terminationHandler = { [self] finished in
            let waiters = self.exited.withLock { state -> [CheckedContinuation<Int32?, Never>] in
                state.status = finished.terminationStatus
                defer { state.waiters = [:] }
                return Array(state.waiters.values)
            }
            for waiter in waiters { waiter.resume(returning: finished.terminationStatus) }
        }
        try process.run()
    }

    var pid: Int32 { process.processIdentifier }
    var stdout: String { (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "" }
    var stderr: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

    /// Whether the process has not exited yet.
    var isRunning: Bool { exited.withLock { $0.status == nil } }

    /// The exit status, or nil if the process is still running at the deadline.
    func wait(timeout: Duration) async -> Int32? {
        await withTimeout(timeout) { await self.waitForExit() }
    }

    /// The exit status; nil if the waiting task is cancelled first. Every continuation is
    /// resumed exactly once: by the exit, or by the cancellation, whichever is first.
    private func waitForExit() async -> Int32? {
        let id = UUID()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Int32?, Never>) in
                let immediate = exited.withLock { state -> Int32?? in
                    if let status = state.status { return .some(status) }
                    if state.cancelled.remove(id) != nil { return .some(nil) }
                    state.waiters[id] = continuation
                    return .none
                }
                if let immediate { continuation.resume(returning: immediate) }
            }
        } onCancel: {
            let waiter = exited.withLock { state -> CheckedContinuation<Int32?, Never>? in
                if let waiter = state.waiters.removeValue(forKey: id) { return waiter }
                if state.status == nil { state.cancelled.insert(id) }
                return nil
            }
            waiter?.resume(returning: nil)
        }
    }

    func signal(_ signal: Int32) { kill(pid, signal) }

    /// SIGTERM, then SIGKILL if it lingers; returns the status.
    @discardableResult
    func stop(timeout: Duration = .seconds(10)) async -> Int32? {
        signal(SIGTERM)
        if let status = await wait(timeout: timeout) { return status }
        signal(SIGKILL)
        return await wait(timeout: .seconds(5))
    }
}

/// Polls `condition` every 100 ms until it holds; throws, naming `what`, at the deadline. The
/// condition is always asked once more at the deadline: a test process whose threads were all
/// busy (the whole suite runs in parallel on two cores) must not fail a wait it never checked.
func waitUntil(_ what: @autoclosure () -> String, timeout: Duration = .seconds(30), _ condition: () async throws -> Bool) async throws {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return }
        try await Task.sleep(for: .milliseconds(100))
    }
    if try await condition() { return }
    throw HarnessError("\(what()): not within \(timeout)")
}

/// Runs a command to completion (with a deadline) and returns status and output.

func runCommand(_ executable: String, _ arguments: [String], environment: [String: String] = [:], in directory: String,
                timeout: Duration = .seconds(120)) async throws -> (status: Int32, stdout: String, stderr: String) {
    let child = try Child(executable, arguments, environment: environment, in: directory)
    guard let status = await child.wait(timeout: timeout) else {
        child.signal(SIGKILL)
        throw HarnessError("\(executable) \(arguments.joined(separator: " ")) did not finish within \(timeout); stderr:\n\(child.stderr)")
    }
    return (status, child.stdout, child.stderr)
}

/// A scratch folder removed at the end of the test.
final class Scratch: Sendable {
    let path: String
    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("cull-it-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// Free loopback TCP ports for a daemon a test starts (checked by binding, then released).
/// Drawn at random below Linux's ephemeral range (32768–60999): a port the kernel handed out
/// for a bind to port 0 is also one it may give the next outgoing connection of another test
/// running in parallel, which then holds it when `cull serve` binds (seen once in a full run:
/// the daemon never came up). Ports below the range are never handed out that way.
///
/// A port is handed out once per test process (`handedOut`): the check only shows it free
/// now, and two tests running in parallel that drew the same port before either daemon bound
/// it had one daemon fail with "Address already in use" (seen once in a full run).
func freePorts(_ count: Int) throws -> [Int] {
    var ports: [Int] = []
    var sockets: [Int32] = []
    defer { for fd in sockets { close(fd) } }
    var tries = 0
    while ports.count < count {
        tries += 1
        guard tries <= 1000 else { throw HarnessError("cannot find a free port in 20000-32767") }
        let port = Int.random(in: 20_000...32_767)
        guard handedOut.withLock({ $0.insert(port).inserted }) else { continue }
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        let length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 }
        }
        if bound {
            sockets.append(fd)
            ports.append(port)
        } else {
            close(fd)
        }
    }
    return ports
}

/// Every port `freePorts` has drawn in this process (a few hundred at most).
private let handedOut = Mutex<Set<Int>>([])

/// Parses `cull --format csv` output: path -> group id, and the keeper paths; every row by
/// its columns' names (`rows`).
struct GroupsCSV {
    static let header = ["group", "kind", "path", "keeper", "distance", "relation", "reference", "width", "height", "bytes",
                         "capture_time", "camera", "keeper_reason"]
    var groupOf: [String: String] = [:]
    var kindOf: [String: String] = [:]
    var keepers: Set<String> = []
    var rows: [[String: String]] = []

    init(_ text: String) throws {
        let lines = text.split(separator: "\n").map(String.init)
        guard let first = lines.first, Self.fields(first) == Self.header else {
            throw HarnessError("unexpected CSV header: \(lines.first ?? "<none>")")
        }
        for line in lines.dropFirst() {
            let fields = Self.fields(line)
            guard fields.count == Self.header.count else { throw HarnessError("bad CSV row: \(line)") }
            rows.append(Dictionary(uniqueKeysWithValues: zip(Self.header, fields)))
            groupOf[fields[2]] = fields[0]
            kindOf[fields[0]] = fields[1]
            if fields[3] == "1" { keepers.insert(fields[2]) }
        }
    }

    /// One CSV line's fields (RFC 4180 quoting; rows hold no line breaks here).
    static func fields(_ line: String) -> [String] {
        var fields: [String] = [], field = "", quoted = false, previous: Character = " "
        for character in line {
            if quoted {
                if character == "\"" { quoted = false } else { field.append(character) }
            } else if character == "\"" {
                if previous == "\"" { field.append("\"") }  // "" inside quotes: one quote
                quoted = true
            } else if character == "," {
                fields.append(field)
                field = ""
            } else {
                field.append(character)
            }
            previous = character
        }
        fields.append(field)
        return fields
    }

    /// Groups as sets of paths, for comparing two runs.
    var partition: Set<Set<String>> {
        Set(Dictionary(grouping: groupOf.keys, by: { groupOf[$0]! }).values.map(Set.init))
    }
}

/// Writes a sample library on a thread of its own: generating and encoding images is CPU work
/// that must not occupy the cooperative pool other tests (and their timeouts) run on.
func writeLibrary(to root: String, scenes: Int, width: Int = 960, height: Int = 720,
                  edits: [SampleLibrary.Edit] = SampleLibrary.Edit.allCases, extras: Bool = true) async throws -> [SampleLibrary.Entry] {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread {
            continuation.resume(with: Result {
                try SampleLibrary.write(to: root, scenes: scenes, width: width, height: height, edits: edits, extras: extras)
            })
        }
    }
}
