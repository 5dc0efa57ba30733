import Analysis

/// A coarse grid of values sampled with bilinear interpolation at full resolution. Upscales the
/// base picture cheaply and turns random grids into spatially correlated detail: real photos'
/// texture spans several pixels, which is what makes their JPEGs as large as they are.
struct Lattice {
    let columns: Int
    let rows: Int
    let channels: Int
    /// Output pixels between neighbouring grid points.
    let spacing: Int
    private let values: [Float]  // rows * columns * channels

    /// A grid of values uniform in -1...1 covering a `width` x `height` image.
    static func random(width: Int, height: Int, spacing: Int, channels: Int = 1,
                       using generator: inout SplitMix64) -> Lattice {
        let columns = width / spacing + 2, rows = height / spacing + 2
        var values = [Float](repeating: 0, count: columns * rows * channels)
        for index in values.indices {
            values[index] = Float(generator.next() >> 40) / Float(1 << 23) - 1
        }
        return Lattice(columns: columns, rows: rows, channels: channels, spacing: spacing, values: values)
    }

    /// The pixels of `image` as a grid, to be enlarged `spacing` times.
    init(image: RGBImage, spacing: Int) {
        self.init(columns: image.width, rows: image.height, channels: 3, spacing: spacing,
                  values: image.pixels.map(Float.init))
    }

    private init(columns: Int, rows: Int, channels: Int, spacing: Int, values: [Float]) {
        self.columns = columns
        self.rows = rows
        self.channels = channels
        self.spacing = spacing
        self.values = values
    }

    /// Fills `row` with channel `channel` of output row `y`, interpolated between grid points.
    func sampleRow(_ y: Int, channel: Int, into row: inout [Float]) {
        let scale = 1 / Float(spacing)
        let gy = Float(y) * scale
        let y0 = min(Int(gy), rows - 1), y1 = min(y0 + 1, rows - 1)
        let fy = gy - Float(y0)
        values.withUnsafeBufferPointer { grid in
            row.withUnsafeMutableBufferPointer { out in
                let top = y0 * columns, bottom = y1 * columns
                for x in 0..<out.count {
                    let gx = Float(x) * scale
                    let x0 = min(Int(gx), columns - 1), x1 = min(x0 + 1, columns - 1)
                    let fx = gx - Float(x0)
                    let a = grid[(top + x0) * channels + channel], b = grid[(top + x1) * channels + channel]
                    let c = grid[(bottom + x0) * channels + channel], d = grid[(bottom + x1) * channels + channel]
                    let upper = a + (b - a) * fx, lower = c + (d - c) * fx
                    out[x] = upper + (lower - upper) * fy
                }
            }
        }
    }
}
