import ArgumentParser
import Analysis
import Foundation
import Shared

/// Scheduling and analysis options shared by `cull serve` and `cull run`.
struct CoordinatorOptions: ParsableArguments {
    @Option(help: "Photos per job sent to a worker (1...1000).")
    var jobSize: Int = 16

    /// The most photos a job may hold: a job's RESULT must fit one message of
    /// `WireProtocol.maxMessageBytes` (16 MiB), and a photo's features take up to about 6.5 KB
    /// (window hashes, thumbnail, chroma layout, and from pipeline 8 a textured photo's 4 KB
    /// detail layout), some EXIF text aside: 1,000 leave more than half the message spare.
    static let largestJobSize = 1_000

    @Option(help: "How long a worker may spend reading one file before it is skipped as timed out (\"30s\"; a bare number is seconds).")
    var fetchTimeout = DurationArgument(.seconds(30))

    @Option(help: "How long a job may take before the coordinator gives it to another worker (\"5m\"; a bare number is seconds).")
    var jobDeadline = DurationArgument(.seconds(300))

    @Option(help: "How long grouping a finished scan may take (\"1h\", \"90m\"); past it the grouping stops and the scan fails with a message (its analysed photos are kept, so a rescan only groups again).")
    var groupingTimeout = DurationArgument(.seconds(3600))

    @Option(help: "Dispatches of a job before it is split photo by photo (and a lone photo recorded failed).")
    var maxAttempts: Int = 3

    @Option(help: "Largest image to decode, in megapixels (checked from the header before decoding).")
    var maxMegapixels: Int = 200

    @Option(help: "Largest file to read, in megabytes.")
    var maxFileMb: Int = 512

    @Option(help: "pHash distance (bits of 64) at or under which two whole frames are near-duplicate candidates; each is confirmed on layout thumbnails (docs/FEATURES.md).")
    var threshold: Int = 10

    @Option(help: "Photos taken this close together (their EXIF capture times, to the fraction of a second when the camera writes it) that look alike are similar shots: a burst or bracket, reported apart from duplicates (\"3s\", \"500ms\"). Photos whose capture times differ are never near-duplicates.")
    var similarWindow = DurationArgument(.seconds(3))

    @Option(help: ArgumentHelp(
        "Embedded previews: 'auto' analyses a photo's EXIF or HEIF thumbnail instead of the main image when it is at least 120 pixels on its short side and shows the same frame; 'never' always decodes the main image.",
        discussion: "Changing it affects photos analysed from then on; docs/FEATURES.md has the accuracy measured either way."))
    var previews: PreviewChoice = .auto

    func validate() throws {
        guard jobSize > 0, fetchTimeout.duration > .zero, jobDeadline.duration > .zero, groupingTimeout.duration > .zero, maxAttempts > 0,
              maxMegapixels > 0, maxFileMb > 0, (0...32).contains(threshold) else {
            throw ValidationError("sizes, timeouts and counts must be positive; --threshold 0...32")
        }
        guard jobSize <= Self.largestJobSize else {
            throw ValidationError("--job-size \(jobSize) is more than \(Self.largestJobSize) photos: a job's results must fit one "
                                  + "\(WireProtocol.maxMessageBytes >> 20) MiB message; use \(Self.largestJobSize) or fewer")
        }
    }

    func configuration(work: String, control: String?, daemon: DaemonOptions) -> CoordinatorConfiguration {
        var configuration = CoordinatorConfiguration(workEndpoint: work, controlEndpoint: control)
        configuration.jobSize = jobSize
        configuration.fetchTimeout = fetchTimeout.duration
        configuration.jobDeadline = jobDeadline.duration
        configuration.groupingTimeout = groupingTimeout.duration
        configuration.maxDispatches = maxAttempts
        configuration.heartbeatInterval = daemon.heartbeatInterval
        configuration.heartbeatLiveness = daemon.liveness
        configuration.analysis.maxPixels = maxMegapixels * 1_000_000
        configuration.analysis.maxFileBytes = maxFileMb << 20
        configuration.analysis.usePreviews = previews == .auto
        configuration.nearThreshold = threshold
        configuration.similarWindow = similarWindow.duration
        return configuration
    }
}

/// `--previews`.
enum PreviewChoice: String, ExpressibleByArgument, CaseIterable, Sendable {
    case never
    case auto

    init?(argument: String) { self.init(rawValue: argument.lowercased()) }
}
