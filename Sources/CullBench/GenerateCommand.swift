import Analysis
import ArgumentParser
import Dispatch
import Foundation
import Synchronization

/// `cull-bench generate`: writes photo-NNNNN.jpg, camera-like baseline JPEGs with EXIF and a
/// thumbnail, or photo-NNNNN.dng, raw files as a camera lays them out (directories, a JPEG
/// preview of 1600 pixels on the long side (half the photo's, if less), then 16-bit sensor
/// data). Files already there are
/// kept (whatever they were made with), so a benchmark's set is made once and reused: keep one
/// folder per size, quality and format.
struct GenerateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate",
        abstract: "Writes camera-like baseline JPEGs (EXIF with a thumbnail) or DNGs; keeps files already there."
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case jpeg, dng
    }

    @Option(help: "Folder to write into (created if missing).")
    var out: String

    @Option(help: "Photos in the set: photo-00000.jpg and on.")
    var count: Int

    @Option(help: "Width in pixels.")
    var width = 4000

    @Option(help: "Height in pixels.")
    var height = 3000

    @Option(help: "JPEG quality (4:2:0, baseline; of a DNG's preview).")
    var quality = 92

    @Option(help: "jpeg, or dng (a raw file with a JPEG preview before its sensor data).")
    var format = Format.jpeg

    @Option(help: "Photos generated at once (default: the core count).")
    var jobs = ProcessInfo.processInfo.activeProcessorCount

    @Option(help: "Seed of the first photo; photo i uses seed + i.")
    var seed: UInt64 = 1

    func validate() throws {
        guard count > 0, width >= 8, height >= 8, (1...100).contains(quality), jobs > 0 else {
            throw ValidationError("--count, --jobs positive; --width, --height at least 8; --quality 1...100")
        }
    }

    func run() throws {
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let missing = (0..<count).filter { !Self.isPresent(path(of: $0)) }
        let started = ContinuousClock.now
        let next = Atomic<Int>(0)
        let failures = Mutex<[String]>([])
        // Each photo is seconds of CPU: one per core, taken from a shared counter.
        DispatchQueue.concurrentPerform(iterations: min(jobs, max(1, missing.count))) { _ in
            while true {
                let slot = next.add(1, ordering: .relaxed).oldValue
                guard slot < missing.count else { return }
                let index = missing[slot]
                do {
                    try write(index: index)
                } catch {
                    failures.withLock { $0.append("\(path(of: index)): \(error)") }
                }
            }
        }
        let problems = failures.withLock { $0 }
        guard problems.isEmpty else { throw ValidationError("could not write:\n" + problems.joined(separator: "\n")) }

        let sizes = (0..<count).map { Self.fileSize(path(of: $0)) }
        let megabytes = Double(sizes.reduce(0, +)) / 1_000_000
        print(String(format: "%@: %d photos %dx%d q%d (%d written in %@, %d already there), %.1f MB, mean %.2f MB",
                     out, count, width, height, quality, missing.count, Self.describe(ContinuousClock.now - started),
                     count - missing.count, megabytes, megabytes / Double(count)))
    }

    func path(of index: Int) -> String {
        "\(out)/photo-\(String(format: "%05d", index)).\(format == .dng ? "dng" : "jpg")"
    }

    private func write(index: Int) throws {
        let image = CameraPhoto.make(seed: seed &+ UInt64(index), width: width, height: height)
        if format == .dng {
            let long = min(1600, max(width, height) / 2), previewSize = width >= height ? (long, long * height / width) : (long * width / height, long)
            var options = SampleDNG.Options(preview: previewSize, captureTime: CameraEXIF.captureTime(index: index))
            options.previewQuality = quality
            try Data(SampleDNG.encode(image, options: options)).write(to: URL(fileURLWithPath: path(of: index)), options: .atomic)
            return
        }
        let thumbnailHeight = max(1, 160 * height / width)
        let small = image.resized(width: 160, height: thumbnailHeight)
        let thumbnail = try JPEGEncoder.encode(rgb: small.pixels, width: small.width, height: small.height, quality: 85)
        let shot = CameraEXIF.Shot(width: width, height: height, captureTime: CameraEXIF.captureTime(index: index))
        let exif = CameraEXIF.block(for: shot, thumbnail: thumbnail)
        let jpeg = try JPEGEncoder.encode(rgb: image.pixels, width: width, height: height, quality: quality, exif: exif)
        // Written to a temporary name and renamed: an interrupted run leaves no half file that
        // a later run would take for a finished one.
        try Data(jpeg).write(to: URL(fileURLWithPath: path(of: index)), options: .atomic)
    }

    private static func isPresent(_ path: String) -> Bool { fileSize(path) > 0 }

    private static func fileSize(_ path: String) -> Int {
        var info = stat()
        return stat(path, &info) == 0 ? Int(info.st_size) : 0
    }

    static func describe(_ duration: Duration) -> String {
        String(format: "%.1f s", duration.seconds)
    }
}

extension Duration {
    var seconds: Double {
        let (whole, fraction) = components
        return Double(whole) + Double(fraction) / 1e18
    }
}
