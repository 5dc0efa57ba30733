/// How unevenly one view of a scene is displaced against another, block by block.
///
/// A crop, once registered (the copy's frame found in its original), lines up everywhere: each
/// block of the copy is best matched where it is. Two views from different points (the two
/// halves of a stereo pair, a step to the side between two shots) do not: a window fitted to
/// the whole frame takes up the scene's mean displacement, and the parts nearer or further
/// than that stay displaced by different amounts (parallax). So for each block with detail,
/// the shift of one plane that best lines it up with the other is found (in plane pixels, to a
/// quarter pixel, `reach` each way), and the spread of those shifts says which of the two it is.
/// docs/FEATURES.md, "Free crops and other viewpoints", has the numbers.
public enum Parallax {
    /// Blocks a side.
    public static let blocks = 4
    /// The largest shift looked for, in plane pixels each way.
    public static let reach: Float = 2
    /// Blocks whose levels vary less than this (standard deviation) have too little detail to
    /// place: a sky or a wall lines up anywhere.
    static let flatBlock: Float = 4
    /// Fewer blocks with detail than this: no measure.
    static let fewestBlocks = 6
    /// A block is placed only where its structure tensor's weaker eigenvalue reaches this
    /// gradient (levels per thumbnail pixel, root mean square; `placeable`). At 3 the hard
    /// set's smooth wallpapers (plasma-*) left 71 of 1,453 registered pairs of one photo's files
    /// past `PairJudge.parallaxLimit`, at 5 33 of 1,151; the stereo pair's 17 registered pairs
    /// stay measured at either.
    static let weakestGradient: Float = 5
    /// A block's best shift counts only when it lines the block up clearly better than where
    /// it is: its misfit under this share of the misfit in place (else the block stays put).
    /// Noise, a blur or a tone edit moves a flat minimum about by a fraction of a pixel; a
    /// second viewpoint moves a sharp one. At 0.8, free crops that register measure at most
    /// 0.36 (0.60 counting every shift) and the stereo pair's halves at least 0.51 (0.57).
    static let clearGain: Float = 0.8

    /// The standard deviation of the blocks' best shifts, the larger of across and down, in
    /// pixels of the `side` × `side` planes (`a` the registered part, `b` the copy); nil when
    /// too few blocks have detail to say.
    public static func spread(_ a: [UInt8], _ b: [UInt8], side: Int) -> Float? {
        precondition(a.count == side * side && b.count == side * side && side >= blocks * 2, "two planes of \(side)×\(side)")
        let n = side / blocks
        var across: [Float] = [], down: [Float] = []
        // One block's levels at a time, normalised in place: the copy's, and `a`'s at each shift
        // tried (about 40 a block: no allocation per shift, on the judge's hot path).
        var target = [Float](repeating: 0, count: n * n), placed = [Float](repeating: 0, count: n * n)
        for blockRow in 0..<blocks {
            for blockColumn in 0..<blocks {
                let x0 = blockColumn * n, y0 = blockRow * n
                let level = { (i: Int, j: Int) in Float(b[(y0 + j) * side + x0 + i]) }
                guard placeable(n: n, level) else { continue }
                for j in 0..<n { for i in 0..<n { target[j * n + i] = level(i, j) } }
                guard normalise(&target) else { continue }
                // Each level of `a` shifted by (dx, dy), its edge beyond the plane: whole pixels
                // read as they are, fractions bilinear.
                func misfit(_ dx: Float, _ dy: Float) -> Float {
                    if dx == dx.rounded(), dy == dy.rounded() {
                        let shiftX = Int(dx), shiftY = Int(dy)
                        for j in 0..<n {
                            let row = min(max(y0 + j + shiftY, 0), side - 1) * side
                            for i in 0..<n { placed[j * n + i] = Float(a[row + min(max(x0 + i + shiftX, 0), side - 1)]) }
                        }
                    } else {
                        a.withUnsafeBufferPointer { pixels in
                            for j in 0..<n {
                                for i in 0..<n {
                                    placed[j * n + i] = TurnedWindow.bilinear(pixels, side: side, last: Float(side - 1),
                                                                              x: Float(x0 + i) + dx, y: Float(y0 + j) + dy)
                                }
                            }
                        }
                    }
                    guard normalise(&placed) else { return .infinity }
                    var sum: Float = 0
                    for k in 0..<(n * n) { sum += abs(placed[k] - target[k]) }
                    return sum
                }
                // Whole pixels over the reach (read without interpolating), then half a pixel
                // and a quarter about the best: about 40 shifts a block, 16 of them bilinear.
                let inPlace = misfit(0, 0)
                var best = (dx: Float(0), dy: Float(0), misfit: inPlace)
                let steps = Int(reach)
                for sy in -steps...steps {
                    for sx in -steps...steps where sx != 0 || sy != 0 {
                        let dx = Float(sx), dy = Float(sy), value = misfit(dx, dy)
                        if value < best.misfit { best = (dx, dy, value) }
                    }
                }
                // A half, then a quarter pixel (a stride, not an array: no allocation a block).
                for step in stride(from: Float(0.5), through: 0.25, by: -0.25) {
                    let centre = best
                    for sy in -1...1 {
                        for sx in -1...1 where sx != 0 || sy != 0 {
                            let dx = centre.dx + Float(sx) * step, dy = centre.dy + Float(sy) * step, value = misfit(dx, dy)
                            if value < best.misfit { best = (dx, dy, value) }
                        }
                    }
                }
                // A shift that lines the block up barely better than where it is tells nothing
                // (noise, a blur, a tone edit move a flat minimum about): the block stays put.
                let clear = best.misfit < clearGain * inPlace
                across.append(clear ? best.dx : 0)
                down.append(clear ? best.dy : 0)
            }
        }
        guard across.count >= fewestBlocks else { return nil }
        return max(deviation(across), deviation(down))
    }

    /// Whether a block's shift can be told in both directions: the weaker of its structure
    /// tensor's two eigenvalues (the mean square gradient, levels per pixel, across the block's
    /// least textured direction) reaches `weakestGradient`. A smooth ramp or a single edge
    /// lines up equally well anywhere along it (the aperture problem), and its "best" shift
    /// is noise.
    private static func placeable(n: Int, _ level: (Int, Int) -> Float) -> Bool {
        var xx: Float = 0, yy: Float = 0, xy: Float = 0, count: Float = 0
        for j in 1..<(n - 1) {
            for i in 1..<(n - 1) {
                let gx = (level(i + 1, j) - level(i - 1, j)) / 2, gy = (level(i, j + 1) - level(i, j - 1)) / 2
                xx += gx * gx; yy += gy * gy; xy += gx * gy; count += 1
            }
        }
        xx /= count; yy /= count; xy /= count
        let weaker = (xx + yy - ((xx - yy) * (xx - yy) + 4 * xy * xy).squareRoot()) / 2
        return weaker >= weakestGradient * weakestGradient
    }

    /// A block's levels less their mean, over their standard deviation, in place; false for a
    /// flat block (left as it is).
    private static func normalise(_ values: inout [Float]) -> Bool {
        let count = Float(values.count)
        var sum: Float = 0
        for v in values { sum += v }
        let mean = sum / count
        var squares: Float = 0
        for k in values.indices { let centred = values[k] - mean; squares += centred * centred }
        let deviation = (squares / count).squareRoot()
        guard deviation >= flatBlock else { return false }
        for k in values.indices { values[k] = (values[k] - mean) / deviation }
        return true
    }

    private static func deviation(_ values: [Float]) -> Float {
        let mean = values.reduce(0, +) / Float(values.count)
        return (values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Float(values.count)).squareRoot()
    }
}
