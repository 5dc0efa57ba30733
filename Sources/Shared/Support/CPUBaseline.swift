import Foundation

/// What this build asks of the processor, checked when `cull` and `cull-worker` start.
///
/// On x86-64 the project's code is built for x86-64-v2 (Package.swift, `cpuBaseline`): a
/// processor without those instructions would stop the first time grouping compares two hashes,
/// with SIGILL and no word of why. The daemons check first and say what is missing and how to
/// build for any x86-64 instead. (Linux names the features in /proc/cpuinfo's `flags` line.)
public enum CPUBaseline {
    /// The /proc/cpuinfo flags of LLVM's `nehalem`, the x86-64-v2 level this build targets.
    public static let x86_64_v2 = ["cx16", "lahf_lm", "popcnt", "sse4_1", "sse4_2", "ssse3"]

    /// The features this build needs: x86-64-v2's when built for it, none otherwise.
    public static var required: [String] {
        #if CULL_X86_64_V2
        x86_64_v2
        #else
        []
        #endif
    }

    /// The `required` features missing from a /proc/cpuinfo text (its first `flags` line; none
    /// found is taken as nothing missing: not every kernel or container shows the file alike,
    /// and a wrong refusal would be worse than the crash it guards against).
    public static func missing(_ required: [String], cpuinfo: String) -> [String] {
        guard let line = cpuinfo.split(separator: "\n").first(where: { $0.hasPrefix("flags") }),
              let colon = line.firstIndex(of: ":") else { return [] }
        let flags = Set(line[line.index(after: colon)...].split(separator: " ").map(String.init))
        return required.filter { !flags.contains($0) }
    }

    /// What to tell the user when this processor lacks what the build needs, nil when it has it.
    public static func problem(program: String, cpuinfo: String) -> String? {
        let lacking = missing(required, cpuinfo: cpuinfo)
        guard !lacking.isEmpty else { return nil }
        return """
            \(program): this build needs an x86-64-v2 processor (POPCNT, SSE4.2), and this one lacks \
            \(lacking.joined(separator: ", ")). Rebuild for any x86-64 with \
            `CULL_PORTABLE_BUILD=1 swift build -c release` (README, "Older processors"); \
            grouping then runs 2-3% slower.
            """
    }

    /// Prints `problem` for this machine to standard error and exits with status 69
    /// (EX_UNAVAILABLE) when there is one.
    public static func exitIfUnsupported(program: String) {
        guard !required.isEmpty, let cpuinfo = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
              let problem = problem(program: program, cpuinfo: cpuinfo) else { return }
        FileHandle.standardError.write(Data((problem + "\n").utf8))
        exit(69)
    }
}
