/// A camera's RAW file and the JPEG (or HEIF) it wrote of the same shot: the same folder, the
/// same name but for the extension (IMG_0042.CR2 and IMG_0042.JPG), as cameras write them and
/// as Lightroom and digiKam pair them. Kept together (docs/FEATURES.md, "RAW + JPEG pairs"):
/// grouping calls the half that is not the keeper a `raw+jpeg pair`, never a copy that could
/// go, and `--pairs keep-raw|keep-jpeg` lets one half go (`PairsPolicy`).
enum RawJPEGPairs {
    enum Half: Equatable {
        case raw
        case picture
    }

    /// Extensions of the RAW formats cameras write (LibRaw reads them; `PhotoFormat.raw`).
    static let rawExtensions: Set<String> = [
        "3fr", "ari", "arw", "bay", "cr2", "cr3", "crw", "dcr", "dng", "erf", "fff", "iiq", "k25", "kdc", "mef", "mos", "mrw",
        "nef", "nrw", "orf", "pef", "raf", "raw", "rw2", "rwl", "sr2", "srf", "srw", "x3f",
    ]
    /// Extensions of what a camera writes beside its RAW.
    static let pictureExtensions: Set<String> = ["jpg", "jpeg", "heic", "heif", "hif"]

    /// Which half of a pair a file at `path` could be, by its extension (any case).
    static func half(of path: String) -> Half? {
        guard let (_, ext) = split(path) else { return nil }
        return rawExtensions.contains(ext) ? .raw : pictureExtensions.contains(ext) ? .picture : nil
    }

    /// For each of `paths` that has its pair's other half among them, that half's index. A
    /// folder and name with more than one RAW or more than one picture pairs nothing (which
    /// belongs with which cannot be told).
    static func partners(_ paths: [String]) -> [Int: Int] {
        var halves: [String: (raws: [Int], pictures: [Int])] = [:]
        for (index, path) in paths.enumerated() {
            guard let (stem, ext) = split(path) else { continue }
            if rawExtensions.contains(ext) { halves[stem, default: ([], [])].raws.append(index) }
            else if pictureExtensions.contains(ext) { halves[stem, default: ([], [])].pictures.append(index) }
        }
        var partners: [Int: Int] = [:]
        for (raws, pictures) in halves.values where raws.count == 1 && pictures.count == 1 {
            partners[raws[0]] = pictures[0]
            partners[pictures[0]] = raws[0]
        }
        return partners
    }

    /// The path without its extension, lowercased (the folder and the name), and the
    /// extension lowercased; nil without an extension.
    private static func split(_ path: String) -> (stem: String, ext: String)? {
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/"), path.index(after: dot) < path.endIndex else { return nil }
        return (path[..<dot].lowercased(), path[path.index(after: dot)...].lowercased())
    }
}
