#if canImport(Glibc)
import Glibc
#endif

/// Generates photo-like images: smooth light and colour fields, soft shapes and film grain,
/// different for every seed. Deterministic, so tests can rely on them.
public enum SyntheticPhoto {
    public static func make(seed: UInt64, width: Int, height: Int) -> RGBImage {
        var random = SplitMix64(seed: seed)
        struct Blob { var x, y, radius: Double; var color: (Double, Double, Double) }
        let blobs = (0..<(6 + Int(random.next() % 6))).map { _ in
            Blob(x: random.unit() * Double(width), y: random.unit() * Double(height),
                 radius: (0.08 + random.unit() * 0.3) * Double(max(width, height)),
                 color: (random.unit() * 255, random.unit() * 255, random.unit() * 255))
        }
        let sky = (random.unit() * 255, random.unit() * 255, random.unit() * 255)
        let ground = (random.unit() * 255, random.unit() * 255, random.unit() * 255)
        let horizon = 0.3 + random.unit() * 0.4
        let stripes = 2 + random.unit() * 10
        let stripeAngle = random.unit() * Double.pi
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            let fy = Double(y) / Double(height)
            let t = 1 / (1 + exp(-(fy - horizon) * 12))
            for x in 0..<width {
                let fx = Double(x) / Double(width)
                var r = sky.0 * (1 - t) + ground.0 * t
                var g = sky.1 * (1 - t) + ground.1 * t
                var b = sky.2 * (1 - t) + ground.2 * t
                for blob in blobs {
                    let dx = Double(x) - blob.x, dy = Double(y) - blob.y
                    let w = exp(-(dx * dx + dy * dy) / (2 * blob.radius * blob.radius))
                    r = r * (1 - w) + blob.color.0 * w
                    g = g * (1 - w) + blob.color.1 * w
                    b = b * (1 - w) + blob.color.2 * w
                }
                let texture = 12 * sin((fx * cos(stripeAngle) + fy * sin(stripeAngle)) * stripes * 2 * Double.pi)
                let grain = (random.unit() - 0.5) * 10
                pixels[(y * width + x) * 3] = clamp(r + texture + grain)
                pixels[(y * width + x) * 3 + 1] = clamp(g + texture + grain)
                pixels[(y * width + x) * 3 + 2] = clamp(b + texture + grain)
            }
        }
        return RGBImage(width: width, height: height, pixels: pixels)
    }

    private static func clamp(_ value: Double) -> UInt8 { UInt8(max(0, min(255, value.rounded()))) }
}

/// A small, fast, seedable generator (SplitMix64), so generated libraries are reproducible.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
}
