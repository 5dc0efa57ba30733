/// A photo of fine texture for tests: a wall of bricks 36 pixels wide and 18 high in a
/// 512-pixel frame (as the holdout corpus's wall), each row half a brick along from the last,
/// 3-pixel mortar, every brick's gray level a little its own and light falling off to one side.
/// Its period is about a cell of the 32×32 layout thumbnail, which is what `DetailLayout` is for.
public enum BrickWall {
    public static func make(side: Int = 512, seed: UInt64 = 7) -> GrayImage {
        let brick = 36, course = 18, mortar = 3
        var random = SplitMix64(seed: seed)
        let shades = (0..<4096).map { _ in Int(random.next() % 17) }
        return GrayImage(width: side, height: side, pixels: (0..<(side * side)).map { index in
            let x = index % side, y = index / side, row = y / course
            let along = x + (row % 2) * brick / 2
            let light = 30 * x / side
            if y % course < mortar || along % brick < mortar { return UInt8(200 - light) }
            return UInt8(100 + shades[(row * 64 + along / brick) % shades.count] - light)
        })
    }

    /// The same wall as RGB (gray), for encoders.
    public static func rgb(side: Int = 512, seed: UInt64 = 7) -> RGBImage {
        let gray = make(side: side, seed: seed)
        return RGBImage(width: side, height: side, pixels: gray.pixels.flatMap { [$0, $0, $0] })
    }
}
