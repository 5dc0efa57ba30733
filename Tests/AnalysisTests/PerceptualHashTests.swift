@testable import Analysis
import Testing

@Suite("Perceptual hashes", .timeLimit(.minutes(5)))
struct PerceptualHashTests {
    /// A horizontal ramp: brightness grows left to right.
    func ramp(width: Int, height: Int, rising: Bool) -> GrayImage {
        var pixels = [UInt8](repeating: 0, count: width * height)
        for y in 0..<height {
            for x in 0..<width {
                let value = x * 255 / (width - 1)
                pixels[y * width + x] = UInt8(rising ? value : 255 - value)
            }
        }
        return GrayImage(width: width, height: height, pixels: pixels)
    }

    @Test("dHash of ramps: no pixel brighter than its right neighbour, or every one")
    func dHashKnownAnswers() {
        #expect(PerceptualHash.dHash(ramp(width: 90, height: 80, rising: true)) == 0)
        #expect(PerceptualHash.dHash(ramp(width: 90, height: 80, rising: false)) == .max)
    }

    @Test("pHash of a negative is the complement (but for the DC bit)")
    func pHashOfNegative() {
        // Negating an image negates every AC coefficient, so every bit but the DC one flips.
        let gray = grayscale(SyntheticPhoto.make(seed: 21, width: 256, height: 192))
        let negative = GrayImage(width: gray.width, height: gray.height, pixels: gray.pixels.map { 255 - $0 })
        let a = PerceptualHash.pHash(gray), b = PerceptualHash.pHash(negative)
        #expect(PerceptualHash.distance(a & ~(1 << 63), ~b & ~(1 << 63)) <= 1)
    }

    /// Pinned values. If a change to resizing or hashing moves them, the stored hashes of every
    /// library change meaning: bump `PhotoAnalyzer.pipelineVersion` with the new values.
    @Test("known answers for a fixed synthetic photo")
    func knownAnswers() {
        let gray = grayscale(SyntheticPhoto.make(seed: 11, width: 256, height: 192))
        #expect(String(PerceptualHash.pHash(gray), radix: 16) == "943843c73e3c634f")
        #expect(String(PerceptualHash.dHash(gray), radix: 16) == "301c1c3c319393a")
    }

    func grayscale(_ image: RGBImage) -> GrayImage {
        var pixels = [UInt8](repeating: 0, count: image.width * image.height)
        for index in pixels.indices {
            let r = Double(image.pixels[index * 3]), g = Double(image.pixels[index * 3 + 1]), b = Double(image.pixels[index * 3 + 2])
            pixels[index] = UInt8((0.299 * r + 0.587 * g + 0.114 * b).rounded())
        }
        return GrayImage(width: image.width, height: image.height, pixels: pixels)
    }

    @Test("the hashes see through resizing and recompression but tell scenes apart")
    func robustness() throws {
        let scene = SyntheticPhoto.make(seed: 11, width: 640, height: 480)
        let other = SyntheticPhoto.make(seed: 12, width: 640, height: 480)
        func decode(_ image: RGBImage, quality: Int) throws -> GrayImage {
            let jpeg = try JPEGEncoder.encode(rgb: image.pixels, width: image.width, height: image.height, quality: quality)
            return try JPEGDecoder.decode(jpeg, minShortSide: 256).luma
        }
        let original = try decode(scene, quality: 92)
        let small = try decode(scene.resized(width: 320, height: 240), quality: 90)
        let rough = try decode(scene, quality: 30)
        let different = try decode(other, quality: 92)
        for copy in [small, rough] {
            #expect(PerceptualHash.distance(PerceptualHash.pHash(original), PerceptualHash.pHash(copy)) <= 4)
            #expect(PerceptualHash.distance(PerceptualHash.dHash(original), PerceptualHash.dHash(copy)) <= 6)
        }
        #expect(PerceptualHash.distance(PerceptualHash.pHash(original), PerceptualHash.pHash(different)) > 16)
    }

    @Test("distance counts differing bits")
    func distance() {
        #expect(PerceptualHash.distance(0, 0) == 0)
        #expect(PerceptualHash.distance(0, .max) == 64)
        #expect(PerceptualHash.distance(0b1011, 0b0001) == 2)
    }

    @Test("area-average resize keeps the mean")
    func resize() {
        let image = GrayImage(width: 4, height: 2, pixels: [0, 100, 200, 40, 10, 30, 50, 70])
        #expect(image.resized(width: 2, height: 1) == [35, 90])
        #expect(image.resized(width: 1, height: 1) == [62.5])
    }
}
