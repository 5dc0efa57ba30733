import Synchronization

/// What one scan's grouping reads besides its rows: the store, and the search's hashes that
/// `CullStore.groupingInput` read in the same pass as the rows. The search's hashes sit in the
/// same `photo_features` rows as the mirror and content hashes the rows carry; read apart, in
/// a second pass over every photo's features, a million photos' took 1.8–3.0 s on both threads
/// (bench/RESULTS.md, "The search's hashes read with the rows").
///
/// Handed over once (`takeSearchHashes`), and only for the photos they were read with, in
/// their order: the search holds them, and lets them go before judging.
final class ScanFeatures: GroupingFeatureSource {
    let store: CullStore
    private let searchHashes: Mutex<(hashes: CompactHashes, photos: Int, ids: UInt64)?>

    /// `hashes`: a row per photo of `photos`, in their order.
    init(store: CullStore, photos: [GroupingPhoto], hashes: CompactHashes) {
        precondition(hashes.count == photos.count, "a row of hashes per photo")
        self.store = store
        searchHashes = Mutex((hashes, photos.count, Self.digest(photos)))
    }

    func takeSearchHashes(for photos: [GroupingPhoto]) -> CompactHashes? {
        searchHashes.withLock { state in
            defer { state = nil }
            guard let held = state, held.photos == photos.count, held.ids == Self.digest(photos) else { return nil }
            return held.hashes
        }
    }

    /// The photos' ids in their order, folded into 64 bits: other photos, or the same in
    /// another order, are not the rows the hashes were read for.
    static func digest(_ photos: [GroupingPhoto]) -> UInt64 {
        photos.reduce(0xCBF2_9CE4_8422_2325) { ($0 ^ UInt64(bitPattern: $1.id)) &* 0x100_0000_01B3 }
    }

    func candidateHashes(of ids: [Int64], plan: CandidatePlan, holdingCropWindows: Bool) throws -> CompactHashes {
        try store.candidateHashes(of: ids, plan: plan, holdingCropWindows: holdingCropWindows)
    }

    func cropWindows(of ids: ArraySlice<Int64>, plan: CandidatePlan) throws -> [UInt64] {
        try store.cropWindows(of: ids, plan: plan)
    }

    func layouts(of ids: [Int64]) throws -> [Int64: PhotoLayout] { try store.layouts(of: ids) }

    func windowHashes(of ids: [Int64]) throws -> [Int64: [UInt64]] { try store.windowHashes(of: ids) }
}
