/// Area averages over arbitrary rectangles of a grayscale image, from its summed-area table:
/// built once per photo, then any window resamples in time proportional to its output size,
/// not to the pixels it covers. That is what makes fifty window hashes per photo cheap.
///
/// The table holds the integral of the image taken as constant over each pixel, so the
/// integral up to a fractional point is exact by bilinear interpolation between table entries,
/// and a cell's average is the same area average `GrayImage.resized` computes.
public struct AreaSampler: Sendable {
    public let width: Int
    public let height: Int
    /// (width + 1) × (height + 1) running sums; row 0 and column 0 are zero.
    private let table: [Double]

    public init(_ image: GrayImage) {
        let width = image.width, height = image.height
        var table = [Double](repeating: 0, count: (width + 1) * (height + 1))
        image.pixels.withUnsafeBufferPointer { pixels in
            table.withUnsafeMutableBufferPointer { Self.fillTable($0, pixels, width: width, height: height) }
        }
        self.width = width
        self.height = height
        self.table = table
    }

    /// `columns` × `rows` area averages covering `window`, row-major.
    public func cells(_ window: FeatureWindow, columns: Int, rows: Int) -> [Float] {
        [Float](unsafeUninitializedCapacity: columns * rows) { out, count in
            table.withUnsafeBufferPointer { Self.cells($0, width: width, height: height, window, columns: columns, rows: rows, into: out) }
            count = columns * rows
        }
    }

    /// `columns` × `rows` area averages covering `window`, row-major, into `out`: for callers
    /// that resample many windows of one image into the same scratch.
    public func cells(_ window: FeatureWindow, columns: Int, rows: Int, into out: UnsafeMutableBufferPointer<Float>) {
        precondition(out.count >= columns * rows)
        table.withUnsafeBufferPointer { Self.cells($0, width: width, height: height, window, columns: columns, rows: rows, into: out) }
    }

    /// The running sums of a `width` × `height` image, written to every entry of `table`
    /// ((width + 1) × (height + 1) of them), for callers that keep tables of their own (on the
    /// stack, or for several windows) and resample windows of them with `cells(ofTable:…)`. The
    /// judge resamples windows of 32×32 thumbnails millions of times; a sampler's arrays a time
    /// were a tenth of a million photos' grouping (allocating, and the runtime's metadata
    /// lookups each allocation makes).
    public static func fillTable(_ table: UnsafeMutableBufferPointer<Double>, of pixels: UnsafeBufferPointer<UInt8>, width: Int, height: Int) {
        precondition(pixels.count == width * height && table.count == (width + 1) * (height + 1))
        for column in 0...width { table[column] = 0 }
        for row in 1...height { table[row * (width + 1)] = 0 }
        fillTable(table, pixels, width: width, height: height)
    }

    /// `columns` × `rows` area averages covering `window` of the image whose running sums
    /// `fillTable` wrote to `table`: the cells a sampler of the image gives.
    public static func cells(ofTable table: UnsafeBufferPointer<Double>, width: Int, height: Int, _ window: FeatureWindow,
                             columns: Int, rows: Int, into out: UnsafeMutableBufferPointer<Float>) {
        precondition(table.count == (width + 1) * (height + 1) && out.count >= columns * rows)
        cells(table, width: width, height: height, window, columns: columns, rows: rows, into: out)
    }

    /// Fills a zeroed table with the running sums of `pixels`.
    private static func fillTable(_ table: UnsafeMutableBufferPointer<Double>, _ pixels: UnsafeBufferPointer<UInt8>, width: Int, height: Int) {
        let stride = width + 1
        for y in 0..<height {
            var rowSum = 0.0
            for x in 0..<width {
                rowSum += Double(pixels[y * width + x])
                table[(y + 1) * stride + x + 1] = table[y * stride + x + 1] + rowSum
            }
        }
    }

    private static func cells(_ table: UnsafeBufferPointer<Double>, width: Int, height: Int, _ window: FeatureWindow,
                              columns: Int, rows: Int, into out: UnsafeMutableBufferPointer<Float>) {
        withUnsafeTemporaryAllocation(of: Double.self, capacity: 2 * (columns + 1 + rows + 1) + (columns + 1) * (rows + 1)) { scratch in
            let xs = UnsafeMutableBufferPointer(rebasing: scratch[0...columns])
            let ys = UnsafeMutableBufferPointer(rebasing: scratch[(columns + 1)...(columns + 1 + rows)])
            let xFractions = UnsafeMutableBufferPointer(rebasing: scratch[(columns + rows + 2)...(2 * columns + rows + 2)])
            let yFractions = UnsafeMutableBufferPointer(rebasing: scratch[(2 * columns + rows + 3)...(2 * columns + 2 * rows + 3)])
            let corners = UnsafeMutableBufferPointer(rebasing: scratch[(2 * (columns + rows + 2))...])
            for column in 0...columns { xs[column] = (window.x + window.width * Double(column) / Double(columns)) * Double(width) }
            for row in 0...rows { ys[row] = (window.y + window.height * Double(row) / Double(rows)) * Double(height) }
            withUnsafeTemporaryAllocation(of: Int.self, capacity: columns + 1 + rows + 1) { starts in
                // Where each grid line falls in the table, once per line rather than once per
                // corner: the judge's registration (`RegionalGain`) resamples hundreds of
                // windows a pair, and the per-corner clamping was most of its time.
                let xStarts = UnsafeMutableBufferPointer(rebasing: starts[0...columns])
                let yStarts = UnsafeMutableBufferPointer(rebasing: starts[(columns + 1)...])
                for column in 0...columns { (xStarts[column], xFractions[column]) = tablePosition(xs[column], size: width) }
                for row in 0...rows { (yStarts[row], yFractions[row]) = tablePosition(ys[row], size: height) }
                // The integral at every grid corner once, then each cell by differences.
                // (Wrapping index arithmetic: the positions are clamped into the table, and
                // the overflow checks were a fifth of this loop's instructions.)
                let stride = width + 1
                for row in 0...rows {
                    let above = yStarts[row] &* stride, fy = yFractions[row]
                    for column in 0...columns {
                        let here = above &+ xStarts[column], fx = xFractions[column]
                        let a = table[here], b = table[here &+ 1]
                        let c = table[here &+ stride], d = table[here &+ stride &+ 1]
                        // Bilinear as three linear steps: half the multiplications of the
                        // four weighted corners (the registration resamples ~70 windows a pair).
                        let top = a + (b - a) * fx, bottom = c + (d - c) * fx
                        corners[row &* (columns &+ 1) &+ column] = top + (bottom - top) * fy
                    }
                }
            }
            for row in 0..<rows {
                let height = ys[row + 1] - ys[row]
                for column in 0..<columns {
                    let top = row &* (columns &+ 1) &+ column, bottom = top &+ columns &+ 1
                    let sum = corners[bottom &+ 1] - corners[bottom] - corners[top &+ 1] + corners[top]
                    let area = (xs[column &+ 1] - xs[column]) * height
                    out[row &* columns &+ column] = Float(area > 0 ? sum / area : 0)
                }
            }
        }
    }

    /// The table entry at or before `position` (clamped to the image) on an axis of `size`
    /// pixels, and how far past it the position lies: the integral there is interpolated
    /// between that entry and the next.
    private static func tablePosition(_ position: Double, size: Int) -> (start: Int, fraction: Double) {
        let clamped = min(max(position, 0), Double(size))
        let start = min(Int(clamped), size - 1)
        return (start, clamped - Double(start))
    }
}
