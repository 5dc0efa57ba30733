/// 64-bit perceptual hashes of a grayscale image, and the distance between them.
public enum PerceptualHash {
    /// DCT hash: shrink to 32x32 (area average), take the 2-D DCT-II, keep the 8x8 lowest
    /// frequencies and set a bit for each coefficient above their median. Bit 63 is
    /// coefficient (0, 0), then row by row: the layout of the common `imagehash` phash.
    public static func pHash(_ image: GrayImage) -> UInt64 {
        pHash(cells: image.resized(width: 32, height: 32))
    }

    /// The pHash of a window, from the photo's `AreaSampler` (no copy of the pixels).
    public static func pHash(_ sampler: AreaSampler, window: FeatureWindow) -> UInt64 {
        pHash(cells: sampler.cells(window, columns: 32, rows: 32))
    }

    /// The pHashes of the frame straightened by each of `FeatureWindow.straightenings`: the part
    /// under each `TurnedWindow.straightened`, 32×32 cells of 2×2 bilinear samples each, from
    /// a 64×64 plane of the frame's area averages (each cell spans under two of its pixels a
    /// side, so its samples come close to the cell's area average; the 8×8 lowest frequencies
    /// the hash keeps do not see the difference). A 128×128 plane and 4×4 samples a cell were a
    /// fifth of the end-to-end library's analysis (160×120 photos) for the same hashes.
    public static func straightenedPHashes(_ sampler: AreaSampler) -> [UInt64] {
        straightenedPHashes(plane: DetailLayout.plane(sampler), aspect: Double(sampler.width) / Double(sampler.height))
    }

    /// The same, from the frame's 64×64 plane (`DetailLayout.plane`) and its aspect ratio.
    public static func straightenedPHashes(plane: [UInt8], aspect: Double) -> [UInt64] {
        let side = DetailLayout.side
        precondition(plane.count == side * side)
        return FeatureWindow.straightenedWindows.map { index in
            pHash(cells: FeatureWindow.straightened(index, imageAspect: aspect).resampled(plane[...], side: side, columns: 32, rows: 32, samples: 2))
        }
    }

    /// The pHash of the whole frame's mirror image (left and right swapped): equal, up to
    /// rounding, to the pHash of a mirrored copy, so grouping finds mirror images with one more
    /// lookup of a hash it already indexes.
    /// From the frame's 32×32 area averages (`pHash(cells:)`'s input).
    static func mirroredPHash(cells: [Float]) -> UInt64 {
        precondition(cells.count == 32 * 32)
        var mirrored = cells
        for row in 0..<32 {
            for column in 0..<32 { mirrored[row * 32 + column] = cells[row * 32 + 31 - column] }
        }
        return pHash(cells: mirrored)
    }

    /// The pHash of 32×32 area averages.
    static func pHash(cells pixels: [Float]) -> UInt64 {
        let size = 32
        precondition(pixels.count == size * size)
        let low = lowFrequencies(pixels, size: size, keep: 8)
        var sorted = low
        sorted.sort()
        let median = (sorted[31] + sorted[32]) / 2
        var hash: UInt64 = 0
        for value in low {
            hash = hash << 1 | (value > median ? 1 : 0)
        }
        return hash
    }

    /// Difference hash: shrink to 9x8 and set a bit where a pixel is brighter than its right
    /// neighbour, row by row, first bit most significant.
    public static func dHash(_ image: GrayImage) -> UInt64 {
        let pixels = image.resized(width: 9, height: 8)
        var hash: UInt64 = 0
        for y in 0..<8 {
            for x in 0..<8 {
                hash = hash << 1 | (pixels[y * 9 + x] > pixels[y * 9 + x + 1] ? 1 : 0)
            }
        }
        return hash
    }

    /// Bits that differ.
    @inlinable
    public static func distance(_ a: UInt64, _ b: UInt64) -> Int {
        (a ^ b).nonzeroBitCount
    }

    /// The top-left `keep` x `keep` block of the 2-D DCT-II of a `size` x `size` image,
    /// row-major. Separable: columns first for the kept rows only, then rows.
    static func lowFrequencies(_ pixels: [Float], size: Int, keep: Int) -> [Float] {
        let basis = size == 32 && keep == 8 ? pHashBasis : cosineBasis(size: size, keep: keep)
        // columnPass[u][x] = sum_y pixels[y][x] * basis[u][y]; then out[u][v] = sum_x columnPass[u][x] * basis[v][x].
        // Raw buffers: this runs 51 times per photo.
        var columnPass = [Float](repeating: 0, count: keep * size)
        var out = [Float](repeating: 0, count: keep * keep)
        pixels.withUnsafeBufferPointer { pixels in
            basis.withUnsafeBufferPointer { basis in
                columnPass.withUnsafeMutableBufferPointer { columnPass in
                    for u in 0..<keep {
                        for y in 0..<size {
                            let weight = basis[u * size + y]
                            let row = y * size, target = u * size
                            for x in 0..<size { columnPass[target + x] += pixels[row + x] * weight }
                        }
                    }
                    out.withUnsafeMutableBufferPointer { out in
                        for u in 0..<keep {
                            for v in 0..<keep {
                                var sum: Float = 0
                                for x in 0..<size { sum += columnPass[u * size + x] * basis[v * size + x] }
                                out[u * keep + v] = sum
                            }
                        }
                    }
                }
            }
        }
        return out
    }

    /// The basis pHash uses, computed once (61 hashes per photo would otherwise recompute it).
    private static let pHashBasis = cosineBasis(size: 32, keep: 8)

    /// cos(pi * (2n + 1) * k / (2N)) for k < keep, n < size.
    private static func cosineBasis(size: Int, keep: Int) -> [Float] {
        var basis = [Float](repeating: 0, count: keep * size)
        for k in 0..<keep {
            for n in 0..<size {
                basis[k * size + n] = Float(cosine(Double.pi * Double(2 * n + 1) * Double(k) / Double(2 * size)))
            }
        }
        return basis
    }
}

#if canImport(Glibc)
import Glibc
private func cosine(_ x: Double) -> Double { Glibc.cos(x) }
#else
import Foundation
private func cosine(_ x: Double) -> Double { Foundation.cos(x) }
#endif
