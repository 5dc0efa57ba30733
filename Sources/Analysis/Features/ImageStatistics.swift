/// Per-photo measures used to pick the keeper of a group.
public enum ImageStatistics {
    /// Variance of the 4-neighbour Laplacian: higher is sharper. Computed on the reduced image,
    /// so compare it only between photos decoded at similar sizes (members of one group are).
    public static func sharpness(_ image: GrayImage) -> Double {
        guard image.width >= 3, image.height >= 3 else { return 0 }
        var sum = 0.0, sumSquares = 0.0
        var count = 0.0
        image.pixels.withUnsafeBufferPointer { p in
            let w = image.width
            for y in 1..<(image.height - 1) {
                for x in 1..<(w - 1) {
                    let i = y * w + x
                    let laplacian = Double(Int(p[i - 1]) + Int(p[i + 1]) + Int(p[i - w]) + Int(p[i + w]) - 4 * Int(p[i]))
                    sum += laplacian
                    sumSquares += laplacian * laplacian
                    count += 1
                }
            }
        }
        let mean = sum / count
        return sumSquares / count - mean * mean
    }

    /// Mean pixel value, 0...255.
    public static func meanLuma(_ image: GrayImage) -> Double {
        var total = 0
        for value in image.pixels { total += Int(value) }
        return Double(total) / Double(image.pixels.count)
    }
}
