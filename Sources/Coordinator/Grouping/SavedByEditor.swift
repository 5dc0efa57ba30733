/// Whether a file's EXIF says an editor saved it: an export or an edit that kept its camera's
/// Make, Model and DateTimeOriginal. Such a file is not a camera original to the keeper chain
/// (`KeeperPolicy`, rule `original`): among two files of one shot with the same camera EXIF and
/// pixels, the camera's own file is kept, not the editor's export of it, which a higher quality
/// setting often makes the larger file (docs/FEATURES.md, "Keepers").
///
/// Two signs, either enough:
/// - **Software** (IFD0) names an editor (`editors`). Cameras write their firmware there
///   ("Ver.1.01", "HDR+ 1.0.5", "17.1" on an iPhone), never an editor's name; Adobe's, GIMP's,
///   darktable's and the other editors listed write their own.
/// - **DateTime** (IFD0, the file's ModifyDate) lies more than `modifyAllowance` after
///   DateTimeOriginal: a camera writes both as it saves the shot, an editor writes the time it
///   saved. Compared as written (wall clock, without offsets or fractions): both come from the
///   same clock's notation.
/// Files without the tags (workers before they were sent, formats without EXIF) say nothing.
enum SavedByEditor {
    /// Lowercased parts of editors' Software values (as they write them: "Adobe Photoshop
    /// Lightroom Classic 13.0 (Windows)", "GIMP 2.10.34", "darktable 4.6.1", "Capture One 23
    /// Macintosh"…). A camera's firmware string holds none of them.
    static let editors = [
        "adobe", "lightroom", "photoshop", "gimp", "darktable", "rawtherapee", "capture one", "affinity", "luminar",
        "dxo", "pixelmator", "snapseed", "picasa", "aperture", "paint.net", "acdsee", "digikam", "corel", "paintshop",
        "on1 photo", "topaz", "polarr", "vsco", "photoscape", "faststone", "irfanview", "xnview", "imagemagick",
        "graphicsmagick", "photopea", "fotor", "photodirector", "skylum", "exposure x", "silkypix", "lightzone",
    ]
    /// How long after DateTimeOriginal a camera may stamp DateTime (seconds): a long exposure
    /// and in-camera processing take seconds, an editor's save comes minutes to years later.
    static let modifyAllowance = 60.0

    static func says(software: String?, captureTime: String?, modifyTime: String?) -> Bool {
        var names = Names()
        return says(software: software, captureTime: captureTime, modifyTime: modifyTime, names: &names)
    }

    /// The same, asking `names` whether the Software names an editor: grouping asks it of every
    /// photo of a scan, and the substring search took about 13 µs a photo (13 s at a million
    /// camera photos, on one thread), while a library holds a few dozen Software values.
    static func says(software: String?, captureTime: String?, modifyTime: String?, names: inout Names) -> Bool {
        if let software, names.isEditor(software) { return true }
        guard let captureTime, let modifyTime,
              let taken = CaptureTime.wallClockSeconds(captureTime),
              let saved = CaptureTime.wallClockSeconds(modifyTime) else { return false }
        return saved - taken > modifyAllowance
    }

    static func isEditor(_ software: String) -> Bool {
        let name = software.lowercased()
        return editors.contains { name.contains($0) }
    }

    /// `isEditor`'s answers for the Software values met so far, at most `capacity` of them (a
    /// library whose every file names other software is searched file by file, holding no more).
    struct Names {
        static let capacity = 4096
        private var known: [String: Bool] = [:]

        init() {}

        mutating func isEditor(_ software: String) -> Bool {
            if let answer = known[software] { return answer }
            let answer = SavedByEditor.isEditor(software)
            if known.count < Self.capacity { known[software] = answer }
            return answer
        }
    }
}
