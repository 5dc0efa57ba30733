import ArgumentParser
import Analysis
import Foundation

/// Scheduling and analysis options shared by `cull serve` and `cull run`.
struct CoordinatorOptions: ParsableArguments {
    @Option(help: "Photos per job sent to a worker.")
    var jobSize: Int = 16

    @Option(help: "Seconds a worker may spend reading one file before it is skipped as timed out.")
    var fetchTimeout: Double = 30

    @Option(help: "Seconds a job may take before the coordinator gives it to another worker.")
    var jobDeadline: Double = 300

    @Option(help: "Dispatches of a job before it is split photo by photo (and a lone photo recorded failed).")
    var maxAttempts: Int = 3

    @Option(help: "Heartbeat interval in milliseconds (both ways).")
    var heartbeatMs: Int = 1000

    @Option(help: "Missed heartbeats after which a worker is presumed dead and its jobs requeued.")
    var liveness: Int = 5

    @Option(help: "Largest image to decode, in megapixels (checked from the header before decoding).")
    var maxMegapixels: Int = 200

    @Option(help: "Largest file to read, in megabytes.")
    var maxFileMb: Int = 512

    @Option(help: "pHash distance (bits of 64) at or under which two whole frames are near-duplicate candidates; each is confirmed on layout thumbnails (docs/FEATURES.md).")
    var threshold: Int = 10

    @Option(help: ArgumentHelp(
        "Embedded previews: 'auto' analyses a photo's EXIF or HEIF thumbnail instead of the main image when it is at least 120 pixels on its short side and shows the same frame; 'never' always decodes the main image.",
        discussion: "Changing it affects photos analysed from then on; docs/FEATURES.md has the accuracy measured either way."))
    var previews: PreviewChoice = .auto

    func validate() throws {
        guard jobSize > 0, fetchTimeout > 0, jobDeadline > 0, maxAttempts > 0, heartbeatMs >= 10, liveness > 0,
              maxMegapixels > 0, maxFileMb > 0, (0...32).contains(threshold) else {
            throw ValidationError("sizes, timeouts and counts must be positive; --heartbeat-ms at least 10; --threshold 0...32")
        }
    }

    func configuration(work: String, control: String?) -> CoordinatorConfiguration {
        var configuration = CoordinatorConfiguration(workEndpoint: work, controlEndpoint: control)
        configuration.jobSize = jobSize
        configuration.fetchTimeout = .milliseconds(Int64(fetchTimeout * 1000))
        configuration.jobDeadline = .milliseconds(Int64(jobDeadline * 1000))
        configuration.maxDispatches = maxAttempts
        configuration.heartbeatInterval = .milliseconds(heartbeatMs)
        configuration.heartbeatLiveness = liveness
        configuration.analysis.maxPixels = maxMegapixels * 1_000_000
        configuration.analysis.maxFileBytes = maxFileMb << 20
        configuration.analysis.usePreviews = previews == .auto
        configuration.nearThreshold = threshold
        return configuration
    }
}

/// `--previews`.
enum PreviewChoice: String, ExpressibleByArgument, CaseIterable, Sendable {
    case never
    case auto
}
