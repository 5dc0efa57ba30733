/// A plain 8-bit RGB image with the few edits a sample library needs.
public struct RGBImage: Sendable {
    public var width: Int
    public var height: Int
    public var pixels: [UInt8]  // width * height * 3

    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(pixels.count == width * height * 3)
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// Box-filtered reduction (or nearest-neighbour enlargement) to a new size.
    public func resized(width newWidth: Int, height newHeight: Int) -> RGBImage {
        var out = [UInt8](repeating: 0, count: newWidth * newHeight * 3)
        for y in 0..<newHeight {
            let y0 = y * height / newHeight, y1 = max(y0 + 1, (y + 1) * height / newHeight)
            for x in 0..<newWidth {
                let x0 = x * width / newWidth, x1 = max(x0 + 1, (x + 1) * width / newWidth)
                for c in 0..<3 {
                    var sum = 0
                    for sy in y0..<y1 { for sx in x0..<x1 { sum += Int(pixels[(sy * width + sx) * 3 + c]) } }
                    out[(y * newWidth + x) * 3 + c] = UInt8(sum / ((y1 - y0) * (x1 - x0)))
                }
            }
        }
        return RGBImage(width: newWidth, height: newHeight, pixels: out)
    }

    /// The image turned a quarter turn, clockwise or not: a copy whose pixels were turned.
    public func turned(clockwise: Bool) -> RGBImage {
        var out = [UInt8](repeating: 0, count: pixels.count)
        for y in 0..<height {
            for x in 0..<width {
                // Clockwise, the pixel at (x, y) goes to column height − 1 − y of row x.
                let (column, row) = clockwise ? (height - 1 - y, x) : (y, width - 1 - x)
                for c in 0..<3 { out[(row * height + column) * 3 + c] = pixels[(y * width + x) * 3 + c] }
            }
        }
        return RGBImage(width: height, height: width, pixels: out)
    }

    public func cropped(x: Int, y: Int, width newWidth: Int, height newHeight: Int) -> RGBImage {
        var out = [UInt8]()
        out.reserveCapacity(newWidth * newHeight * 3)
        for row in y..<(y + newHeight) {
            let start = (row * width + x) * 3
            out.append(contentsOf: pixels[start..<(start + newWidth * 3)])
        }
        return RGBImage(width: newWidth, height: newHeight, pixels: out)
    }

    public func brightened(by factor: Double) -> RGBImage {
        RGBImage(width: width, height: height, pixels: pixels.map { UInt8(min(255, (Double($0) * factor).rounded())) })
    }

    /// Rotated 90 degrees counter-clockwise (what a camera stores with EXIF orientation 6).
    public func rotatedCounterClockwise() -> RGBImage {
        var out = [UInt8](repeating: 0, count: pixels.count)
        let newWidth = height, newHeight = width
        for y in 0..<height {
            for x in 0..<width {
                let nx = y, ny = width - 1 - x
                for c in 0..<3 { out[(ny * newWidth + nx) * 3 + c] = pixels[(y * width + x) * 3 + c] }
            }
        }
        return RGBImage(width: newWidth, height: newHeight, pixels: out)
    }

    /// Left and right swapped.
    public func mirrored() -> RGBImage {
        var out = [UInt8](repeating: 0, count: pixels.count)
        for y in 0..<height {
            for x in 0..<width {
                for c in 0..<3 { out[(y * width + width - 1 - x) * 3 + c] = pixels[(y * width + x) * 3 + c] }
            }
        }
        return RGBImage(width: width, height: height, pixels: out)
    }

    /// Framed in plain `gray` borders, `vertical` pixels above and below, `horizontal` left and right.
    public func bordered(vertical: Int, horizontal: Int, gray: UInt8) -> RGBImage {
        let newWidth = width + 2 * horizontal, newHeight = height + 2 * vertical
        var out = [UInt8](repeating: gray, count: newWidth * newHeight * 3)
        for y in 0..<height {
            let target = ((y + vertical) * newWidth + horizontal) * 3
            out.replaceSubrange(target..<(target + width * 3), with: pixels[(y * width * 3)..<((y + 1) * width * 3)])
        }
        return RGBImage(width: newWidth, height: newHeight, pixels: out)
    }

    /// The bottom `share` of the frame painted over in `gray` (a caption band).
    public func banded(bottom share: Double, gray: UInt8) -> RGBImage {
        var out = self
        let start = height - Int(share * Double(height))
        out.pixels.replaceSubrange((start * width * 3)..<pixels.count, with: repeatElement(gray, count: (height - start) * width * 3))
        return out
    }
}
