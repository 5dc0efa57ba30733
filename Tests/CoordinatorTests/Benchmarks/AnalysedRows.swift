@testable import Coordinator
import Analysis
import Foundation
import GRDB

/// What the measurements of `PairJudge` read from a database that `cull run` wrote: every
/// analysed photo as the grouper sees it, and every pairing candidate search can make.
enum AnalysedRows {
    /// The analysed photos, keyed by `key(path)` (rows it maps to nil are left out).
    static func load(_ database: DatabaseQueue, key: (String) -> String?) throws -> [String: GroupingPhoto] {
        try database.read { db in
            var rows: [String: GroupingPhoto] = [:]
            // A database cull wrote before pipeline 8 (and has not opened since) has no detail layouts.
            let detail = try db.columns(in: "photo_features").contains { $0.name == "detail" } ? "f.detail" : "NULL AS detail"
            let sql = "SELECT p.id, p.path, p.phash, p.width, p.height, f.window_phashes, f.thumbnail, p.capture_time, f.content_box, f.chroma, \(detail), f.mirror_phash, f.content_phash FROM photos p JOIN photo_features f ON f.photo_id = p.id WHERE p.status = 'analysed'"
            for row in try GRDB.Row.fetchAll(db, sql: sql) {
                let path: String = row["path"]
                guard let key = key(path) else { continue }
                rows[key] = GroupingPhoto(id: row["id"], path: path, sha256: [], pHash: UInt64(bitPattern: row["phash"] ?? 0), dHash: 0,
                                          windowPHashes: WindowHashesColumn.decode(row["window_phashes"]),
                                          thumbnail: [UInt8]((row["thumbnail"] as Data?) ?? Data()), width: row["width"] ?? 1, height: row["height"] ?? 1, fileSize: 1,
                                          sharpness: 0, captureTime: (row["capture_time"] as String?).flatMap(CaptureTime.seconds),
                                          mirrorPHash: (row["mirror_phash"] as Int64?).map { UInt64(bitPattern: $0) },
                                          contentBox: ContentBoxColumn.decode(row["content_box"]),
                                          contentPHash: (row["content_phash"] as Int64?).map { UInt64(bitPattern: $0) },
                                          turnedPHash: TurnedFrame.pHash(thumbnail: [UInt8]((row["thumbnail"] as Data?) ?? Data())),
                                          squarePHash: CentreSquare.pHash(thumbnail: [UInt8]((row["thumbnail"] as Data?) ?? Data()),
                                                                          width: row["width"] ?? 1, height: row["height"] ?? 1),
                                          chroma: [UInt8]((row["chroma"] as Data?) ?? Data()),
                                          detail: [UInt8]((row["detail"] as Data?) ?? Data()))
            }
            return rows
        }
    }

    /// Every pairing the judge compares that candidate search can make for the two: whole
    /// frames, each crop window against the other's frame either way, the same overlay or
    /// caption window of both, either mirrored or turned, a centre square or a content box against
    /// the other's frame.
    static func pairings(_ a: GroupingPhoto, _ b: GroupingPhoto) -> [Grouper.Pairing] {
        var slots = [(0, 0)]
        for k in 1...FeatureWindow.crops.count { slots += [(k, 0), (0, k)] }
        for k in FeatureWindow.overlayWindows + FeatureWindow.captionWindows { slots.append((k + 1, k + 1)) }
        let mirror = Int(Candidate.mirrorSlot), content = Int(Candidate.contentSlot)
        slots += [(mirror, 0), (0, mirror)]
        let turned = Int(Candidate.turnedSlot)
        slots += [(turned, 0), (0, turned)]
        let square = Int(Candidate.squareSlot)
        if a.squarePHash != nil { slots.append((square, 0)) }
        if b.squarePHash != nil { slots.append((0, square)) }
        if a.contentBox != nil { slots.append((content, 0)) }
        if b.contentBox != nil { slots.append((0, content)) }
        return slots.map { Grouper.Pairing(slotA: $0.0, slotB: $0.1) }
    }

    /// The pairings whose hashes are within the default plan's radii, in candidate order
    /// (`CandidatePlan.pairingsWithinReach`, what grouping judges a near pair on again).
    static func pairingsWithinReach(_ a: GroupingPhoto, _ b: GroupingPhoto, plan: CandidatePlan = CandidatePlan()) -> [Grouper.Pairing] {
        plan.pairingsWithinReach(a, b)
    }
}
