@testable import Analysis
import Testing

/// The crop- and overlay-tolerant features of pipeline 3 (docs/FEATURES.md).
@Suite("Window hashes and layout thumbnails", .timeLimit(.minutes(5)))
struct WindowFeatureTests {
    static let photo = SyntheticPhoto.make(seed: 5, width: 1600, height: 1200)

    func analyse(_ image: RGBImage, quality: Int = 90) throws -> PhotoFeatures {
        let jpeg = try JPEGEncoder.encode(rgb: image.pixels, width: image.width, height: image.height, quality: quality)
        return try PhotoAnalyzer.analyze(jpeg, path: "/t/photo.jpg", options: AnalysisOptions())
    }

    /// `fraction` of the photo from (x, y), in fractions of each side.
    func crop(_ image: RGBImage, x: Double, y: Double, size: Double) -> RGBImage {
        image.cropped(x: Int(x * Double(image.width)), y: Int(y * Double(image.height)),
                      width: Int(size * Double(image.width)), height: Int(size * Double(image.height)))
    }

    @Test("window layout: 25 windows of 90% in 2.5% steps, 25 of 80% in 5% steps, six bands; overlay windows on the 5% grid")
    func layout() {
        #expect(FeatureWindow.crops.count == 56)
        func close(_ a: FeatureWindow, _ b: FeatureWindow) -> Bool {
            abs(a.x - b.x) < 1e-9 && abs(a.y - b.y) < 1e-9 && abs(a.width - b.width) < 1e-9 && abs(a.height - b.height) < 1e-9
        }
        #expect(close(FeatureWindow.crops[0], FeatureWindow(x: 0, y: 0, width: 0.9, height: 0.9)))
        #expect(close(FeatureWindow.crops[8], FeatureWindow(x: 0.075, y: 0.025, width: 0.9, height: 0.9)))
        #expect(close(FeatureWindow.crops[24], FeatureWindow(x: 0.1, y: 0.1, width: 0.9, height: 0.9)))
        #expect(close(FeatureWindow.crops[37], FeatureWindow(x: 0.1, y: 0.1, width: 0.8, height: 0.8)))
        for window in FeatureWindow.crops {
            #expect(window.x + window.width <= 1.0 + 1e-9 && window.y + window.height <= 1.0 + 1e-9)
        }
        let overlay = FeatureWindow.overlayWindows.map { FeatureWindow.crops[$0] }
        let offsets = overlay.map { [($0.x * 40).rounded(), ($0.y * 40).rounded()] }  // in 2.5% steps
        #expect(Set(offsets.map { $0[0] }) == [0, 2, 4] && Set(offsets.map { $0[1] }) == [0, 2, 4])
        #expect(overlay.allSatisfy { $0.width == 0.9 })
        // Bands: one side kept whole, the other 80% at 0, 10% and 20%.
        let bands = FeatureWindow.bandWindows.map { FeatureWindow.crops[$0] }
        #expect(bands.map(\.x) == [0, 0.1, 0.2, 0, 0, 0] && bands.map(\.y) == [0, 0, 0, 0, 0.1, 0.2])
        #expect(bands.map(\.width) == [0.8, 0.8, 0.8, 1, 1, 1] && bands.map(\.height) == [1, 1, 1, 0.8, 0.8, 0.8])
        #expect(FeatureWindow.captionWindows.map { FeatureWindow.crops[$0].y } == [0, 0.2])
    }

    @Test("the summed-area sampler's cell averages equal brute-force area averages, for frames and windows")
    func samplerMatchesBruteForce() {
        let gray = GrayImage(width: 97, height: 61, pixels: (0..<(97 * 61)).map { UInt8(truncatingIfNeeded: $0 &* 2654435761 >> 7) })
        let sampler = AreaSampler(gray)
        for window in [FeatureWindow.full, FeatureWindow.crops[8], FeatureWindow.crops[37]] {
            let (columns, rows) = (13, 9)
            let cells = sampler.cells(window, columns: columns, rows: rows)
            for row in 0..<rows {
                for column in 0..<columns {
                    // The cell's rectangle in pixels, and every pixel's overlap with it.
                    let x0 = (window.x + window.width * Double(column) / Double(columns)) * Double(gray.width)
                    let x1 = (window.x + window.width * Double(column + 1) / Double(columns)) * Double(gray.width)
                    let y0 = (window.y + window.height * Double(row) / Double(rows)) * Double(gray.height)
                    let y1 = (window.y + window.height * Double(row + 1) / Double(rows)) * Double(gray.height)
                    var sum = 0.0, area = 0.0
                    for y in 0..<gray.height {
                        let wy = max(0, min(y1, Double(y + 1)) - max(y0, Double(y)))
                        guard wy > 0 else { continue }
                        for x in 0..<gray.width {
                            let wx = max(0, min(x1, Double(x + 1)) - max(x0, Double(x)))
                            sum += Double(gray[x, y]) * wx * wy
                            area += wx * wy
                        }
                    }
                    let expected = Float(sum / area), got = cells[row * columns + column]
                    #expect(abs(expected - got) < 0.01, "cell (\(column), \(row)) of \(window): \(got) vs \(expected)")
                }
            }
        }
    }

    @Test("a crop's whole frame hashes like the original's window it came from", arguments: [
        (0.05, 0.05, 0.9, 12),   // 5% off every side
        (0.075, 0.025, 0.9, 8),  // off-centre
        (0.1, 0.1, 0.8, 37),     // 10% off every side
    ])
    func cropMeetsWindow(x: Double, y: Double, size: Double, window: Int) throws {
        let original = try analyse(Self.photo)
        let cropped = try analyse(crop(Self.photo, x: x, y: y, size: size))
        let viaWindow = PerceptualHash.distance(original.windowPHashes[window], cropped.pHash)
        let wholeFrames = PerceptualHash.distance(original.pHash, cropped.pHash)
        #expect(viaWindow <= 6, "window \(window): \(viaWindow) bits")
        #expect(viaWindow < wholeFrames, "the window should be closer than the whole frame (\(viaWindow) vs \(wholeFrames))")
    }

    @Test("thumbnail difference: small for re-encodes and tone edits, large for other photos")
    func thumbnailDifference() throws {
        let original = try analyse(Self.photo)
        func difference(_ other: PhotoFeatures, window: Int? = nil) -> Float {
            let cropWindow = window.map { FeatureWindow.crops[$0] } ?? .full
            return LayoutThumbnail.difference(LayoutThumbnail.cells(of: original.thumbnail, in: cropWindow),
                                              LayoutThumbnail.cells(of: other.thumbnail, in: .full))
        }
        // Grouping confirms whole frames at 0.09 or less, windows at 0.06 (Grouper).
        let recompressed = difference(try analyse(Self.photo, quality: 40))
        #expect(recompressed < 0.02, "\(recompressed)")
        // 15% brighter clips this bright photo's highlights channel by channel, which moves
        // the ranks of a few cells: still well inside the whole-frame limit.
        let brightened = difference(try analyse(Self.photo.brightened(by: 1.15)))
        #expect(brightened < 0.08, "\(brightened)")
        let cropped = difference(try analyse(crop(Self.photo, x: 0.05, y: 0.05, size: 0.9)), window: 12)
        #expect(cropped < 0.04, "\(cropped)")
        for seed in [6, 7, 8] as [UInt64] {
            let other = difference(try analyse(SyntheticPhoto.make(seed: seed, width: 1600, height: 1200)))
            #expect(other > 0.15, "seed \(seed): \(other)")
        }
    }

    @Test("a white box over a tenth of the cells is trimmed out of the difference")
    func overlayIsTrimmed() {
        let side = LayoutThumbnail.side
        let base = (0..<(side * side)).map { UInt8(40 + ($0 % side) * 3 + ($0 / side)) }
        var boxed = base
        for y in 26..<31 { for x in 18..<31 { boxed[y * side + x] = 255 } }  // ~6% of the frame
        let a = LayoutThumbnail.cells(of: base, in: .full), b = LayoutThumbnail.cells(of: boxed, in: .full)
        let boxedDifference = LayoutThumbnail.difference(a, b)
        #expect(boxedDifference < 0.02, "\(boxedDifference)")
        #expect(LayoutThumbnail.difference(a, a) == 0)
    }
}
