import Analysis
import Crypto
import Foundation

/// Where one photo's time goes, measured on one thread so the stages do not compete: the fetch
/// (read + SHA-256, as PhotoFetcher does it), SHA-256 alone, the JPEG header, EXIF and the
/// DCT-scaled decode, each through the public piece PhotoAnalyzer's JPEG path calls, and the
/// whole `PhotoAnalyzer.analyze`. Features are what the whole takes beyond those pieces, so the
/// breakdown follows the analysis as features are added without restating them here.
struct StageBreakdown {
    private(set) var photos = 0
    private var totals: [Stage: Duration] = [:]

    enum Stage: String, CaseIterable {
        case fetch = "fetch (read + SHA-256)"
        case sha256 = "  of which SHA-256"
        case header = "JPEG header"
        case exif = "EXIF"
        case decode = "decode (Y, Cb, Cr planes, DCT-scaled)"
        case analyze = "PhotoAnalyzer.analyze, whole"
    }

    mutating func measure(_ path: String, options: AnalysisOptions) throws {
        let fetched = try time(.fetch) { try PhotoFetcher.fetch(path: path, maxFileBytes: options.maxFileBytes) }
        let bytes = fetched.bytes
        _ = time(.sha256) { SHA256.hash(data: bytes) }
        _ = try time(.header) { try JPEGDecoder.header(bytes) }
        _ = time(.exif) { JPEGMetadataReader.read(bytes) }
        _ = try time(.decode) { try JPEGDecoder.decode(bytes, minShortSide: options.minShortSide) }
        _ = try time(.analyze) { try PhotoAnalyzer.analyze(bytes, path: path, options: options) }
        photos += 1
    }

    /// One line per stage: milliseconds per photo and the share of fetch + analyze.
    func report(jobs: Int) -> String {
        guard photos > 0 else { return "no photos measured" }
        func perPhoto(_ stage: Stage) -> Double { (totals[stage] ?? .zero).seconds * 1000 / Double(photos) }
        let whole = perPhoto(.fetch) + perPhoto(.analyze)
        let rest = perPhoto(.analyze) - perPhoto(.header) - perPhoto(.exif) - perPhoto(.decode)
        func line(_ name: String, _ ms: Double) -> String {
            String(format: "  %@ %8.3f ms  %5.1f%%", name.padding(toLength: 44, withPad: " ", startingAt: 0), ms, ms * 100 / whole)
        }
        var lines = ["per photo, one thread, \(photos) photos:"]
        lines += Stage.allCases.map { line($0.rawValue, perPhoto($0)) }
        lines.append(line("  of which features and the rest", rest))
        lines.append(String(format: "  fetch + analyze: %.2f ms: %.1f photos/s on one core, %.1f on %d if they scaled perfectly",
                            whole, 1000 / whole, Double(jobs) * 1000 / whole, jobs))
        return lines.joined(separator: "\n")
    }

    private mutating func time<T>(_ stage: Stage, _ work: () throws -> T) rethrows -> T {
        let start = ContinuousClock.now
        let result = try work()
        totals[stage, default: .zero] += ContinuousClock.now - start
        return result
    }
}
