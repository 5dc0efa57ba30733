import Analysis

/// Pairs of photos that may be other shots of one moment although candidate search did not
/// pair them: a burst frame whose camera panned 5% and whose subject moved is often past the
/// search's 10 bits (8 for a window) from its neighbour (the hard set's panned frames: 8–28
/// bits on whole frames, most 16–24; 6–18 on the best window), and searching every photo at
/// that radius would pair thousands of unrelated photos each. Shots of one moment are neighbours in a library:
///
/// - photos with a capture time, within `window` seconds of each other (a burst, a bracket);
/// - photos without one (the hard set's frames, scans, exports that dropped their EXIF), next
///   to each other in their folder by file name: cameras and phones number their files in
///   shooting order, so the frames of a burst are the files around each other.
///
/// Each photo is paired with at most `perPhoto` of the neighbours after it, and only when the
/// whole frames are within `hashRadius` bits: neighbours that look nothing alike are never
/// looked at more closely. What the pairs are is for `PairJudge.similarShot` to say; they can
/// be similar at most, never near on a neighbour's word (a near pair must be one candidate search
/// makes: `Grouper.similarNeighbours` judges a neighbour pair as a candidate when its hashes are
/// within the search's radii, and a large library's probes missed the pairing that confirms it).
struct SimilarNeighbours: Sendable {
    /// Seconds between two capture times for the shots to be neighbours (`PairJudge.similarWindow`).
    var window: Double = 3
    /// How many of the photos after a photo (in time, or in its folder) it is paired with: a
    /// burst frame reaches the frames up to this far on either side.
    var perPhoto = 8
    /// The largest whole-frame pHash distance of a neighbour pair: 22 of 64 bits keeps 18 of the
    /// hard set's 21 panned burst frames and 20 of its 21 zoomed ones (8–28 and 2–24 from their
    /// scene's original), while two unrelated photos are this close about once in 1,000 pairs.
    var hashRadius = 22

    /// The neighbour pairs among `photos[representatives]`, as indexes into `representatives`
    /// (the smaller first), each pair once, in the order they are met: photo by photo in time,
    /// then folder by folder by name. The pairs of one burst come together, so the judge's few
    /// cached cells serve them (`Grouper.similarNeighbours`) and a batch of pairs reads each
    /// photo's layout once. Sorted by index, a photo's later partners came back wherever the
    /// library's order put them: at a million rows, whose names sort otherwise than their
    /// indexes, the neighbour step ranked most frames once per pair.
    func pairs(_ photos: [GroupingPhoto], representatives: [Int]) -> [(Int, Int)] {
        var timed: [(time: Double, index: Int)] = [], untimed: [(folder: Int32, index: Int)] = []
        var folders: [Substring: Int32] = [:]
        for (index, photo) in representatives.enumerated() {
            if let time = photos[photo].captureTime {
                timed.append((time, index))
            } else {
                let folder = Self.folder(of: photos[photo].path)
                let id = folders[folder] ?? Int32(folders.count)
                if id == folders.count { folders[folder] = id }
                untimed.append((id, index))
            }
        }
        timed.sort { $0.time != $1.time ? $0.time < $1.time : $0.index < $1.index }
        // By folder, then by path (the file name, within one folder).
        untimed.sort { $0.folder != $1.folder ? $0.folder < $1.folder : photos[representatives[$0.index]].path < photos[representatives[$1.index]].path }
        var found: [UInt64] = []
        func consider(_ x: Int, _ y: Int) {
            guard PerceptualHash.distance(photos[representatives[x]].pHash, photos[representatives[y]].pHash) <= hashRadius else { return }
            found.append(UInt64(UInt32(min(x, y))) << 32 | UInt64(UInt32(max(x, y))))
        }
        for (position, first) in timed.enumerated() {
            for next in timed[(position + 1)...].prefix(perPhoto) {
                guard next.time - first.time <= window else { break }
                consider(first.index, next.index)
            }
        }
        for (position, first) in untimed.enumerated() {
            for next in untimed[(position + 1)...].prefix(perPhoto) {
                guard next.folder == first.folder else { break }
                consider(first.index, next.index)
            }
        }
        // A pair is either timed or untimed, never both: each is found once.
        return found.map { (Int($0 >> 32), Int($0 & 0xFFFF_FFFF)) }
    }

    /// The path up to its last slash: the folder.
    static func folder(of path: String) -> Substring {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return "" }
        return path[..<slash]
    }
}
