/// A photo of fine texture for tests: a wall of bricks 36 pixels wide and 18 high in a
/// 512-pixel frame (as the holdout corpus's wall), each row half a brick along from the last,
/// 3-pixel mortar, every brick's gray level a little its own and light falling off to one side.
/// Its period is about a cell of the 32×32 layout thumbnail, which is what `DetailLayout` is for.
public enum BrickWall {
    /// A part of the wall: `width` × `height` pixels from (x, y) of it.
    public typealias Crop = (x: Int, y: Int, width: Int, height: Int)

    /// The `side` × `side` wall, or the part of it `crop` names (a crop as an editor saves it).
    public static func make(side: Int = 512, seed: UInt64 = 7, crop: Crop? = nil) -> GrayImage {
        let brick = 36, course = 18, mortar = 3
        let part = crop ?? (0, 0, side, side)
        var random = SplitMix64(seed: seed)
        let shades = (0..<4096).map { _ in Int(random.next() % 17) }
        return GrayImage(width: part.width, height: part.height, pixels: (0..<(part.width * part.height)).map { index in
            let x = part.x + index % part.width, y = part.y + index / part.width, row = y / course
            let along = x + (row % 2) * brick / 2
            let light = 30 * x / side
            if y % course < mortar || along % brick < mortar { return UInt8(200 - light) }
            return UInt8(100 + shades[(row * 64 + along / brick) % shades.count] - light)
        })
    }

    /// The same as RGB (gray), for encoders.
    public static func rgb(side: Int = 512, seed: UInt64 = 7, crop: Crop? = nil) -> RGBImage {
        let gray = make(side: side, seed: seed, crop: crop)
        return RGBImage(width: gray.width, height: gray.height, pixels: gray.pixels.flatMap { [$0, $0, $0] })
    }
}
