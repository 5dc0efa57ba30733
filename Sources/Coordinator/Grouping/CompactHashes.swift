import Analysis

/// The hashes candidate search reads, and nothing else: eight bytes for the frame, the mirror
/// image and each window of the plan, per photo, and the content hashes of bordered photos.
struct CompactHashes: Sendable {
    let plan: CandidatePlan
    private(set) var frames: [UInt64] = []
    /// `plan.windows.count` hashes per row, row after row (zeros where a row lacks a window).
    private(set) var windows: [UInt64] = []
    /// How many window hashes each row has: 0 before pipeline 3, 50 from pipeline 3, 56 from
    /// pipeline 4, 60 (`FeatureWindow.hashedCount`) from pipeline 6. A row has window k when k < this.
    private(set) var windowCounts: [UInt8] = []
    /// Mirror-image pHashes (zero, with `hasMirror` false, for rows before pipeline 4).
    private(set) var mirrors: [UInt64] = []
    private(set) var hasMirror: [Bool] = []
    /// Bordered rows and their content pHashes.
    private(set) var contentRows: [Int32] = []
    private(set) var contents: [UInt64] = []
    /// The windows held (`plan.windows`, worked out once: a row reads them 40 times; or only
    /// the overlay windows, when the crop windows are read a chunk of rows at a time).
    let held: [Int]
    /// Where each window hash (`FeatureWindow.hashedCount`) is in a row of `windows` (-1: not held).
    let column: [Int]

    /// `holdingCropWindows` false: only the overlay windows are held (the tables need every
    /// row's); the search reads the crop windows chunk by chunk (`CropWindowSource`).
    init(plan: CandidatePlan, holdingCropWindows: Bool = true) {
        self.plan = plan
        held = holdingCropWindows ? plan.windows : Array(Set(plan.overlayWindows)).sorted()
        var column = [Int](repeating: -1, count: FeatureWindow.hashedCount)
        for (position, k) in held.enumerated() { column[k] = position }
        self.column = column
    }

    var count: Int { frames.count }

    mutating func reserve(_ rows: Int) {
        frames.reserveCapacity(rows)
        windows.reserveCapacity(rows * held.count)
        windowCounts.reserveCapacity(rows)
        mirrors.reserveCapacity(rows)
        hasMirror.reserveCapacity(rows)
    }

    /// Appends a photo; `windows` is its window hashes, in order (as many as its worker sent),
    /// or empty.
    mutating func append(frame: UInt64, windows all: [UInt64], mirror: UInt64? = nil, content: UInt64? = nil) {
        let row = Int32(frames.count)
        frames.append(frame)
        let count = min(all.count, FeatureWindow.hashedCount)
        windowCounts.append(UInt8(count))
        for k in held { windows.append(k < count ? all[k] : 0) }
        mirrors.append(mirror ?? 0)
        hasMirror.append(mirror != nil)
        if let content {
            contentRows.append(row)
            contents.append(content)
        }
    }

    func hasWindow(_ row: Int, _ k: Int) -> Bool { k < Int(windowCounts[row]) }
    func window(_ row: Int, _ k: Int) -> UInt64 { windows[row * held.count + column[k]] }

    /// Appends `other`'s rows after these (the same plan and held windows): the search's hashes
    /// read in parts on grouping's threads, put together in the order of their ids.
    mutating func append(contentsOf other: CompactHashes) {
        precondition(other.held == held, "parts of one read hold the same windows")
        let offset = Int32(frames.count)
        frames += other.frames
        windows += other.windows
        windowCounts += other.windowCounts
        mirrors += other.mirrors
        hasMirror += other.hasMirror
        contentRows += other.contentRows.map { $0 + offset }
        contents += other.contents
    }
}
