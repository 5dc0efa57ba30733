import Analysis

extension CandidatePlan {
    /// Every pairing of `a` and `b` whose hashes are within this plan's radii, as seen from `a`
    /// and in the order the judge meets a pair's candidates (by slot of `a`, then of `b`): what
    /// an exact search with this plan would return for the pair. The tables' probes return a
    /// subset, and which one depends on the library's size (`MultiIndexHash.pieceCount`: at
    /// 3 pieces a probe at piece radius 1 is exact to 5 bits only), as do the crop windows
    /// probed (`sized(for:)`); `Grouper.reachCheck` judges near pairs again on this set.
    ///
    /// The mirror pairing is listed once, as search keeps it: from `a` when `a` has a mirror
    /// hash, else from `b`. A turned pairing, or a centre square's, is listed from each end
    /// whose turned frame (centre square) is near the other's frame. Rows without window hashes
    /// have no window pairings.
    func pairingsWithinReach(_ a: GroupingPhoto, _ b: GroupingPhoto) -> [Grouper.Pairing] {
        func within(_ x: UInt64, _ y: UInt64, _ radius: Int) -> Bool { (x ^ y).nonzeroBitCount <= radius }
        var found: [Grouper.Pairing] = []
        if within(a.pHash, b.pHash, frameRadius) { found.append(Grouper.Pairing(slotA: 0, slotB: 0)) }
        let counts = (a.windowPHashes.count, b.windowPHashes.count)
        // The plan's windows as bit masks (window indexes are under 64).
        let crops = cropWindows.reduce(UInt64(0)) { $0 | 1 << UInt64($1) }, overlays = overlayWindows.reduce(UInt64(0)) { $0 | 1 << UInt64($1) }
        for k in cropWindows where k < counts.1 && within(a.pHash, b.windowPHashes[k], cropRadius(ofWindow: k)) {
            found.append(Grouper.Pairing(slotA: 0, slotB: k + 1))
        }
        let mirror = Int(Candidate.mirrorSlot), content = Int(Candidate.contentSlot), turned = Int(Candidate.turnedSlot)
        let square = Int(Candidate.squareSlot)
        if squares, let squareB = b.squarePHash, within(a.pHash, squareB, frameRadius) { found.append(Grouper.Pairing(slotA: 0, slotB: square)) }
        if turns, let turnedB = b.turnedPHash, within(a.pHash, turnedB, frameRadius) { found.append(Grouper.Pairing(slotA: 0, slotB: turned)) }
        if mirrors, a.mirrorPHash == nil, let mirrorB = b.mirrorPHash, within(a.pHash, mirrorB, frameRadius) {
            found.append(Grouper.Pairing(slotA: 0, slotB: mirror))
        }
        let contentA = contents && a.contentBox != nil ? a.contentPHash : nil
        let contentB = contents && b.contentBox != nil ? b.contentPHash : nil
        if let contentB, within(a.pHash, contentB, frameRadius) { found.append(Grouper.Pairing(slotA: 0, slotB: content)) }
        for k in 0..<FeatureWindow.hashedCount where k < counts.0 {
            if crops >> UInt64(k) & 1 == 1, within(a.windowPHashes[k], b.pHash, cropRadius(ofWindow: k)) { found.append(Grouper.Pairing(slotA: k + 1, slotB: 0)) }
            if overlays >> UInt64(k) & 1 == 1, k < counts.1, within(a.windowPHashes[k], b.windowPHashes[k], overlayRadius) {
                found.append(Grouper.Pairing(slotA: k + 1, slotB: k + 1))
            }
        }
        if squares, let squareA = a.squarePHash, within(squareA, b.pHash, frameRadius) { found.append(Grouper.Pairing(slotA: square, slotB: 0)) }
        if turns, let turnedA = a.turnedPHash, within(turnedA, b.pHash, frameRadius) { found.append(Grouper.Pairing(slotA: turned, slotB: 0)) }
        if mirrors, let mirrorA = a.mirrorPHash, within(mirrorA, b.pHash, frameRadius) { found.append(Grouper.Pairing(slotA: mirror, slotB: 0)) }
        if let contentA {
            if within(contentA, b.pHash, frameRadius) { found.append(Grouper.Pairing(slotA: content, slotB: 0)) }
            if let contentB, within(contentA, contentB, frameRadius) { found.append(Grouper.Pairing(slotA: content, slotB: content)) }
        }
        return found
    }

    /// Whether a search with this plan, on tables of `pieces` pieces, returns `pairing` of the
    /// two photos (as seen from `a`): its hashes within the plan's radius for it, and met by the
    /// tables' probes. The pairing may be one of another plan's reach.
    func returns(_ pairing: Grouper.Pairing, _ a: GroupingPhoto, _ b: GroupingPhoto, pieces: Int) -> Bool {
        func probed(_ x: UInt64, _ y: UInt64, _ pieceRadius: Int?) -> Bool {
            pieceRadius.map { MultiIndexHash.agreeOnAPiece(x, y, pieces: pieces, within: $0) } ?? true
        }
        let x = a.pHash(atSlot: pairing.slotA), y = b.pHash(atSlot: pairing.slotB), bits = (x ^ y).nonzeroBitCount
        let window = pairing.slotA >= 1 && pairing.slotA <= FeatureWindow.hashedCount ? pairing.slotA - 1
            : pairing.slotB >= 1 && pairing.slotB <= FeatureWindow.hashedCount ? pairing.slotB - 1 : nil
        guard let window else { return bits <= frameRadius && probed(x, y, framePieceRadius) }
        if pairing.slotA == pairing.slotB {  // an overlay window
            return overlayWindows.contains(window) && bits <= overlayRadius && probed(x, y, windowPieceRadius)
        }
        let piecewise = cropWindows.contains(window)
        guard piecewise || cheapCropWindows.contains(window), bits <= cropRadius(ofWindow: window) else { return false }
        return probed(x, y, piecewise ? windowPieceRadius : 0) || interleavedProbe(window, x, y, pieces: pieces)
    }

    /// Whether window `k`'s hash `x` and a frame `y` (within the crop radius) meet in the
    /// interleaved table (`interleavedCropWindows`, in any of `interleavedCuts`).
    func interleavedProbe(_ k: Int, _ x: UInt64, _ y: UInt64, pieces: Int) -> Bool {
        guard let windowPieceRadius, interleavedCropWindows.contains(k) else { return false }
        return interleavedCuts.contains { cut in
            let bits = InterleavedBits.cut(cut, pieces: pieces)
            return MultiIndexHash.agreeOnAPiece(bits(x), bits(y), pieces: pieces, within: windowPieceRadius)
        }
    }
}

extension GroupingPhoto {
    /// The hash a pairing's slot names: the whole frame (0), a window (k + 1), the centre square,
    /// the turned frame, the mirror image or the content box (0 for a photo without one).
    func pHash(atSlot slot: Int) -> UInt64 {
        switch slot {
        case 0: pHash
        case Int(Candidate.mirrorSlot): mirrorPHash ?? 0
        case Int(Candidate.squareSlot): squarePHash ?? 0
        case Int(Candidate.turnedSlot): turnedPHash ?? 0
        case Int(Candidate.contentSlot): contentPHash ?? 0
        default: windowPHashes[slot - 1]
        }
    }
}
