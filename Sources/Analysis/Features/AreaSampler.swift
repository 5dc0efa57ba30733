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
        let stride = width + 1
        var table = [Double](repeating: 0, count: stride * (height + 1))
        image.pixels.withUnsafeBufferPointer { pixels in
            for y in 0..<height {
                var rowSum = 0.0
                for x in 0..<width {
                    rowSum += Double(pixels[y * width + x])
                    table[(y + 1) * stride + x + 1] = table[y * stride + x + 1] + rowSum
                }
            }
        }
        self.width = width
        self.height = height
        self.table = table
    }

    /// `columns` × `rows` area averages covering `window`, row-major.
    public func cells(_ window: FeatureWindow, columns: Int, rows: Int) -> [Float] {
        let xs = (0...columns).map { (window.x + window.width * Double($0) / Double(columns)) * Double(width) }
        let ys = (0...rows).map { (window.y + window.height * Double($0) / Double(rows)) * Double(height) }
        // The integral at every grid corner once, then each cell by differences.
        var corners = [Double](repeating: 0, count: (columns + 1) * (rows + 1))
        table.withUnsafeBufferPointer { table in
            corners.withUnsafeMutableBufferPointer { corners in
                for row in 0...rows {
                    for column in 0...columns {
                        corners[row * (columns + 1) + column] = Self.integral(table, width: width, height: height, xs[column], ys[row])
                    }
                }
            }
        }
        var out = [Float](repeating: 0, count: columns * rows)
        for row in 0..<rows {
            let height = ys[row + 1] - ys[row]
            for column in 0..<columns {
                let top = row * (columns + 1) + column, bottom = top + columns + 1
                let sum = corners[bottom + 1] - corners[bottom] - corners[top + 1] + corners[top]
                let area = (xs[column + 1] - xs[column]) * height
                out[row * columns + column] = Float(area > 0 ? sum / area : 0)
            }
        }
        return out
    }

    /// The integral of the image over [0, x] × [0, y], for fractional x and y.
    private static func integral(_ table: UnsafeBufferPointer<Double>, width: Int, height: Int, _ x: Double, _ y: Double) -> Double {
        let x = min(max(x, 0), Double(width)), y = min(max(y, 0), Double(height))
        let x0 = min(Int(x), width - 1), y0 = min(Int(y), height - 1)
        let fx = x - Double(x0), fy = y - Double(y0)
        let stride = width + 1
        let a = table[y0 * stride + x0], b = table[y0 * stride + x0 + 1]
        let c = table[(y0 + 1) * stride + x0], d = table[(y0 + 1) * stride + x0 + 1]
        return a * (1 - fx) * (1 - fy) + b * fx * (1 - fy) + c * (1 - fx) * fy + d * fx * fy
    }
}
