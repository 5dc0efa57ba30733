import Analysis

/// Where grouping reads what the store's rows leave out (`CullStore` is one). A scan's rows
/// (`CullStore.groupingInput`) carry what every photo needs: sizes, paths, digests, the frame's
/// hashes. The rest is read when it is needed and let go after, so a million photos never hold
/// their window hashes twice or their thumbnails at all:
///
/// - the plan's candidate hashes, straight into the search's compact columns (or taken from
///   those read with the rows: `takeSearchHashes`), and the crop windows a chunk of rows at a
///   time, while the search runs;
/// - the layouts (thumbnail, chroma) of the photos a batch of candidates pairs;
/// - the window hashes of group members, for the distances a listing shows.
///
/// Called from grouping's own thread (a blocking queue), never from the cooperative pool.
protocol GroupingFeatureSource: Sendable {
    /// The candidate hashes of these photos for `plan`, one row per id, in the order given
    /// (`holdingCropWindows` as `CompactHashes.init(plan:holdingCropWindows:)`).
    func candidateHashes(of ids: [Int64], plan: CandidatePlan, holdingCropWindows: Bool) throws -> CompactHashes
    /// The plan's crop windows of these photos, `plan.probedCropWindows` of each, in the order given
    /// (0 for a window a photo's worker did not send). Called from the search's threads.
    func cropWindows(of ids: ArraySlice<Int64>, plan: CandidatePlan) throws -> [UInt64]
    /// The layouts of those of these photos that have them.
    func layouts(of ids: [Int64]) throws -> [Int64: PhotoLayout]
    /// The window hashes of those of these photos that have them.
    func windowHashes(of ids: [Int64]) throws -> [Int64: [UInt64]]
    /// The search's hashes (the overlay windows held) of exactly `photos`, row for row, if they
    /// were read with them; the source lets them go (a second call returns nil). Nil: read
    /// them with `candidateHashes`.
    func takeSearchHashes(for photos: [GroupingPhoto]) -> CompactHashes?
}

extension GroupingFeatureSource {
    func takeSearchHashes(for photos: [GroupingPhoto]) -> CompactHashes? { nil }
}
