import Analysis
import Foundation
import Shared

/// The life of a scan. A scan is `running` from its start (walk and analysis overlap) until it
/// ends in exactly one of the other states.
enum ScanState: String, Sendable, CaseIterable {
    case running, done, cancelled, superseded, failed

    var isTerminal: Bool { self != .running }
}

struct ScanRecord: Sendable, Equatable {
    var id: Int64
    var libraryID: Int64
    var root: String
    var generation: Int64
    var state: ScanState
    var walkComplete: Bool
    var total: Int64
    var done: Int64
    var failed: Int64
    var groups: Int64
    var startedAt: Double
    var finishedAt: Double?
    var error: String?
    /// Photos sent back for analysis from their main image (`CullStore.requestVerification`).
    var verifying: Int64 = 0
    /// Files the scan's walk sent to analysis (new, changed, or analysed again), and the
    /// unchanged ones among them (size and mtime): their result came from an older analysis
    /// pipeline, or from a failure that may pass (`recordWalkBatch`).
    var toAnalyse: Int64 = 0
    var analysedAgain: Int64 = 0
    /// How its groups' keepers are chosen: the scan request's, else the daemon's default.
    var keeperPolicy = KeeperPolicy()
    /// Which files its walk takes.
    var walkFilter = WalkFilter()

    /// What a running scan is doing (nil once it ended). Analysis overlaps the walk, so
    /// "walking" lasts until the last file is found; "verifying" is analysis again, of
    /// near-group members whose features came from embedded previews.
    var phase: ScanPhase? {
        guard state == .running else { return nil }
        if !walkComplete { return .walking }
        if done < total { return verifying > 0 ? .verifying : .analysing }
        return .grouping
    }
}

enum ScanPhase: String, Sendable {
    case walking, analysing, grouping, verifying
}

/// A file the walk found.
struct WalkedFile: Sendable, Equatable {
    var path: String
    var size: Int64
    var mtimeNanoseconds: Int64
    /// Which file it is (`st_dev`, `st_ino`; a link to a file: its target's) and how many hard
    /// links it has: two paths of one file are one photo, never a copy that could go.
    var device: Int64 = 0
    var inode: Int64 = 0
    var links: Int64 = 1
}

/// A job as the scheduler holds it: what to send, and for which scan.
struct JobSpec: Sendable, Equatable {
    var jobID: Int64
    var scanID: Int64
    var generation: Int64
    var photos: [Cull_V1_PhotoRef]
    /// Dispatches before this one (from SQLite, so it survives restarts).
    var dispatches: Int
    /// Suspected of killing workers: it runs alone on a worker, so that if the worker dies
    /// again the blame falls on this job and on no innocent job beside it.
    var runsAlone = false
    /// A verification job: its photos are analysed from their main image, never from an
    /// embedded preview, whatever the scan's `--previews` says.
    var fullDecode = false
}

/// A RESULT as received, with who sent it.
struct ReceivedResult: Sendable {
    var result: Cull_V1_Result
    var workerID: String
    var pipelineVersion: UInt32
}

/// What a batch of results did: applied, or dropped by the fence and why.
struct ResultTally: Sendable, Equatable {
    var applied = 0
    /// Results for a generation that is no longer current (cancelled, superseded scans).
    var stale = 0
    /// Results for an attempt no longer in flight (late, duplicate, requeued).
    var duplicate = 0
    /// Outcomes of admitted results not stored as sent (`OutcomeWriter`), and whose.
    var rejectedOutcomes = 0
    var rejectingWorkers: Set<String> = []
    /// Scans that may have just received their last photo.
    var scansToCheck: Set<Int64> = []
}

/// One photo as grouping sees it.
struct GroupingPhoto: Sendable {
    var id: Int64
    var path: String
    var sha256: [UInt8]
    var pHash: UInt64
    var dHash: UInt64
    /// pHashes of `FeatureWindow.crops` (empty for rows from before pipeline 3).
    var windowPHashes: [UInt64] = []
    /// `LayoutThumbnail.side`² gray levels (empty for rows from before pipeline 3).
    var thumbnail: [UInt8] = []
    var width: Int
    var height: Int
    var fileSize: Int64
    /// The file's modification time (ns since 1970), as the walk found it.
    var modified: Int64 = 0
    /// Which file (`WalkedFile.device`, `.inode`; 0 when not known): paths that share both are
    /// one file reached twice (a hard link, a link to a file).
    var device: Int64 = 0
    var inode: Int64 = 0
    var sharpness: Double
    /// Its pixel features may come from an embedded preview (not yet verified on the main image).
    var fromPreview = false
    /// Camera EXIF (make or model, and a capture time) in a format cameras write: what the
    /// keeper chain calls a camera original (`KeeperPolicy`).
    var isCameraOriginal = false
    /// In one of the scan's reference folders: always kept, never moved.
    var isReference = false
    /// When it was taken (`CaptureTime.seconds`), if its metadata says.
    var captureTime: Double? = nil
    /// Its exposure settings (`ShotSettings.key`; 0: not known).
    var exposure: UInt64 = 0
    /// The mirror image's pHash (nil for rows from before pipeline 4).
    var mirrorPHash: UInt64? = nil
    /// The part of the frame inside plain borders, and its pHash (nil: no borders, or a row
    /// from before pipeline 4).
    var contentBox: FeatureWindow? = nil
    var contentPHash: UInt64? = nil
    /// The pHash of the frame turned a quarter turn clockwise (`TurnedFrame.pHash`; nil
    /// without a thumbnail).
    var turnedPHash: UInt64? = nil
    /// The pHash of the frame's centre square (`CentreSquare.pHash`; nil for frames near
    /// square, or without a thumbnail).
    var squarePHash: UInt64? = nil
    /// `ChromaLayout` (empty: a grayscale photo, or a row from before pipeline 4).
    var chroma: [UInt8] = []
    /// `DetailLayout` (empty: no fine texture, or a row from before pipeline 8).
    var detail: [UInt8] = []

    /// The plane the judge's comparison cells are resampled from: the detail layout where the
    /// photo keeps one (its thumbnail misstates its windows), else the thumbnail.
    var comparedPlane: (pixels: [UInt8], side: Int) {
        hasDetail ? (detail, DetailLayout.side) : (thumbnail, LayoutThumbnail.side)
    }

    var hasDetail: Bool { DetailLayout.isLayout(byteCount: detail.count) }
}

/// What the judge reads of a photo besides its hashes: read for the photos candidate search
/// pairs only (`CullStore.layouts`).
struct PhotoLayout: Sendable, Equatable {
    var thumbnail: [UInt8]
    var chroma: [UInt8]
    /// `DetailLayout` (empty: no fine texture, or a row from before pipeline 8).
    var detail: [UInt8] = []
}

/// Storage problems, with what the user can do about them.
struct StoreError: Error, CustomStringConvertible {
    let description: String
}

/// The scan a write was for is no longer current: the write did nothing (a fence held).
struct ScanNotCurrent: Error, CustomStringConvertible {
    let scanID: Int64
    var description: String { "scan \(scanID) is no longer the current scan of its library" }
}

/// `photo_features.window_phashes`: the window pHashes as one BLOB of little-endian 64-bit words
/// (400 bytes for the 50 windows of pipeline 3), so a row stays one row.
enum WindowHashesColumn {
    static func encode(_ hashes: [UInt64]) -> Data? {
        guard !hashes.isEmpty else { return nil }
        var data = Data(capacity: hashes.count * 8)
        for hash in hashes { withUnsafeBytes(of: hash.littleEndian) { data.append(contentsOf: $0) } }
        return data
    }

    /// The hashes of a column's bytes (none unless a whole number of hashes). Read straight
    /// from the bytes: grouping decodes a million photos' columns two or three times (the
    /// search's crop windows, its overlay windows, the listing's distances), and decoding them
    /// through a `Data` slice and a byte-wise reduce per hash was about a seventh of a million
    /// photos' grouping through the store (perf: the slices' exclusivity checks).
    static func decode(_ data: Data?) -> [UInt64] {
        guard let data else { return [] }
        return data.withUnsafeBytes(decode)
    }

    /// The same, from the column's bytes where SQLite holds them (`RawStatement.blob`).
    static func decode(_ bytes: UnsafeRawBufferPointer) -> [UInt64] {
        guard bytes.count % 8 == 0 else { return [] }
        let count = bytes.count / 8
        return [UInt64](unsafeUninitializedCapacity: count) { hashes, initialized in
            for index in 0..<count { hashes[index] = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: index * 8, as: UInt64.self)) }
            initialized = count
        }
    }
}

/// `photo_features.content_box`: a `ContentBox` window as four little-endian Float32 fractions
/// (x, y, width, height). Invalid boxes (outside the frame, empty) read as none.
enum ContentBoxColumn {
    static func encode(_ box: Cull_V1_ContentBox) -> Data? {
        let values = [box.x, box.y, box.width, box.height]
        guard values.allSatisfy({ $0.isFinite && $0 >= 0 && $0 <= 1 }), box.width > 0, box.height > 0,
              box.x + box.width <= 1.0001, box.y + box.height <= 1.0001 else { return nil }
        var data = Data(capacity: 16)
        for value in values { withUnsafeBytes(of: value.bitPattern.littleEndian) { data.append(contentsOf: $0) } }
        return data
    }

    static func decode(_ data: Data?) -> FeatureWindow? {
        guard let data else { return nil }
        return data.withUnsafeBytes(decode)
    }

    /// The same, from the column's bytes where SQLite holds them (`RawStatement.blob`).
    static func decode(_ bytes: UnsafeRawBufferPointer) -> FeatureWindow? {
        guard bytes.count == 16 else { return nil }
        func value(_ k: Int) -> Double { Double(Float(bitPattern: UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: k * 4, as: UInt32.self)))) }
        return FeatureWindow(x: value(0), y: value(1), width: value(2), height: value(3))
    }
}
