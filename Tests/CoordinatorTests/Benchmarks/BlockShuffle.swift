import Analysis

/// A disguise of a row's layout that every *position-preserving* edit commutes with: the
/// thumbnail cut into 4×4 blocks (8×8 pixels of the 32×32 layout, 16×16 of the 64×64 detail
/// layout, 4×4 cells of the 16×16 chroma layout) put back in a random order, the same order for a photo and its copies.
///
/// The rows' tone disguise (`ToneMap`) makes a different-looking photo of one real source, and
/// commutes with geometric edits (a crop or a mirror of the toned picture is the toned crop),
/// but not with tone edits or re-encoding: a brightening seen through a curve that goes up and
/// down is no monotone change of the photo any more. Shuffled blocks commute exactly with
/// whatever treats each pixel where it is (tone and colour edits, re-encodes, resizes; the
/// blur of a block's edge aside), and make rows of one source as different as a scrambled
/// picture is; they do not commute with crops, mirrors, borders or overlays, which move or
/// cover content across blocks. So a family whose edits all keep positions
/// (`positionPreserving`) is disguised by a shuffle; any other is shown as its source is
/// (`LayoutDisguise`).
struct BlockShuffle {
    static let blocksPerSide = 4
    /// The block each output block is taken from.
    let order: [Int]

    init(seed: UInt32) {
        var random = SplitMix64(seed: UInt64(seed) | 1 << 40)
        var order = Array(0..<(Self.blocksPerSide * Self.blocksPerSide))
        for index in stride(from: order.count - 1, to: 0, by: -1) {
            order.swapAt(index, Int(random.next() % UInt64(index + 1)))
        }
        self.order = order
    }

    /// Edits that leave every pixel where it was: tone, colour and format changes, re-encodes,
    /// resizes, blur and sharpening, and EXIF rotations (the worker undoes them). The corpora's
    /// other edits (crops, borders, mirrors, turns, captions, logos, watermarks) move or cover
    /// content.
    static let positionPreserving: Set<String> = [
        "blur", "bright15", "bw_highcontrast", "contrast", "exif_rot270", "exif_rot90", "gamma", "gray", "heic",
        "jpeg_q40", "png", "resize50", "sharpen", "small_q30", "small_q70", "warm_grade", "webp",
    ]

    /// `plane`'s `side` × `side` cells, each `side / blocksPerSide` block moved to its place.
    func shuffled(_ plane: ArraySlice<UInt8>, side: Int) -> [UInt8] {
        let block = side / Self.blocksPerSide, base = plane.startIndex
        var out = [UInt8](repeating: 0, count: side * side)
        for (target, source) in order.enumerated() {
            let (targetRow, targetColumn) = (target / Self.blocksPerSide * block, target % Self.blocksPerSide * block)
            let (sourceRow, sourceColumn) = (source / Self.blocksPerSide * block, source % Self.blocksPerSide * block)
            for y in 0..<block {
                for x in 0..<block {
                    out[(targetRow + y) * side + targetColumn + x] = plane[base + (sourceRow + y) * side + sourceColumn + x]
                }
            }
        }
        return out
    }


    /// A chroma layout (Cb plane, then Cr) shuffled alike; one of another size (pipeline 4's
    /// 8×8) or none is left as it is.
    func chroma(_ planes: [UInt8]) -> [UInt8] {
        let side = ChromaLayout.side
        guard planes.count == 2 * side * side else { return planes }
        return shuffled(planes[0..<(side * side)], side: side) + shuffled(planes[(side * side)...], side: side)
    }
}
