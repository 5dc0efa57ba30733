@testable import Analysis
import CHeif
import Testing

@Suite("PNG, WebP and HEIF", .timeLimit(.minutes(5)))
struct FormatTests {
    let scene = SyntheticPhoto.make(seed: 31, width: 640, height: 480)

    func jpegFeatures() throws -> PhotoFeatures {
        let jpeg = try JPEGEncoder.encode(rgb: scene.pixels, width: 640, height: 480, quality: 92)
        return try PhotoAnalyzer.analyze(jpeg, path: "a.jpg", options: AnalysisOptions())
    }

    @Test("a PNG of a photo hashes like its JPEG")
    func png() throws {
        let png = try #require(PNGDecoder.encode(rgb: scene.pixels, width: 640, height: 480))
        let features = try PhotoAnalyzer.analyze(png, path: "a.png", options: AnalysisOptions())
        #expect(features.format == .png)
        #expect(features.width == 640 && features.height == 480)
        #expect(min(features.decodedWidth, features.decodedHeight) == 256, "reduced like a DCT-scaled JPEG")
        let distance = PerceptualHash.distance(features.pHash, try jpegFeatures().pHash)
        #expect(distance <= 6, "distance \(distance)")
    }

    @Test("a PNG with a damaged chunk is corrupt, a truncated one too")
    func damagedPNG() throws {
        var png = try #require(PNGDecoder.encode(rgb: scene.pixels, width: 640, height: 480))
        let idat = try #require((0..<(png.count - 4)).first { png[$0..<($0 + 4)].elementsEqual(Array("IDAT".utf8)) })
        png[idat + 10] ^= 0xFF  // inside the compressed data: the CRC no longer matches
        for broken in [png, Array(png.prefix(png.count / 2)), Array(png.prefix(40))] {
            do {
                _ = try PhotoAnalyzer.analyze(broken, path: "/x/bad.png", options: AnalysisOptions())
                Issue.record("a damaged PNG decoded")
            } catch {
                #expect(error.kind == .corrupt)
                #expect(error.message.contains("/x/bad.png"))
            }
        }
    }

    @Test("a WebP is decoded scaled, and hashes like its JPEG")
    func webp() throws {
        let webp = try #require(WebPDecoder.encode(rgb: scene.pixels, width: 640, height: 480, quality: 80))
        let features = try PhotoAnalyzer.analyze(webp, path: "a.webp", options: AnalysisOptions())
        #expect(features.format == .webp)
        #expect(features.width == 640 && features.height == 480)
        #expect(features.decodedHeight == 256, "libwebp scaled while decoding")
        #expect(PerceptualHash.distance(features.pHash, try jpegFeatures().pHash) <= 4)
        do {
            _ = try PhotoAnalyzer.analyze(Array(webp.prefix(webp.count / 3)), path: "/x/cut.webp", options: AnalysisOptions())
            Issue.record("a truncated WebP decoded")
        } catch {
            #expect(error.kind == .corrupt)
        }
    }

    @Test("a WebP's levels and colours are read at full range, as its JPEG's (libwebp hands out video range)")
    func webpRange() throws {
        // A dark ground, a saturated patch and a light one: where video range differs most.
        var rgb = [UInt8](repeating: 0, count: 640 * 480 * 3)
        for y in 0..<480 {
            for x in 0..<640 {
                let colour: [UInt8] = x < 320 ? [36, 36, 36] : y < 240 ? [200, 60, 40] : [230, 230, 225]
                rgb.replaceSubrange((y * 640 + x) * 3..<((y * 640 + x) * 3 + 3), with: colour)
            }
        }
        let jpeg = try PhotoAnalyzer.analyze(try JPEGEncoder.encode(rgb: rgb, width: 640, height: 480, quality: 95), path: "a.jpg", options: AnalysisOptions())
        let webp = try PhotoAnalyzer.analyze(try #require(WebPDecoder.encode(rgb: rgb, width: 640, height: 480, quality: 95)),
                                             path: "a.webp", options: AnalysisOptions())
        func largestDifference(_ a: [UInt8], _ b: [UInt8]) -> Int { zip(a, b).map { abs(Int($0) - Int($1)) }.max() ?? .max }
        // Cells away from the patches' edges: the ground's, the red's, the light patch's.
        let side = LayoutThumbnail.side
        for (x, y) in [(side / 8, side / 2), (side * 7 / 8, side / 8), (side * 7 / 8, side * 7 / 8)] {
            let a = Int(jpeg.thumbnail[y * side + x]), b = Int(webp.thumbnail[y * side + x])
            #expect(abs(a - b) <= 3, "luma at (\(x), \(y)): JPEG \(a), WebP \(b)")
        }
        #expect(jpeg.chroma.count == webp.chroma.count && !jpeg.chroma.isEmpty)
        // Chroma layout: the red patch's Cr is far from 128 (about 190 in JPEG, 182 as stored in video range).
        #expect(largestDifference(jpeg.chroma, webp.chroma) <= 6, "chroma layouts differ by \(largestDifference(jpeg.chroma, webp.chroma))")
        #expect(VideoRange.luma[16] == 0 && VideoRange.luma[235] == 255 && VideoRange.chroma[128] == 128 && VideoRange.chroma[240] == 255)
    }

    @Test("pixel limits are checked from the header for every format")
    func limits() throws {
        var options = AnalysisOptions()
        options.maxPixels = 100_000
        let png = try #require(PNGDecoder.encode(rgb: scene.pixels, width: 640, height: 480))
        let webp = try #require(WebPDecoder.encode(rgb: scene.pixels, width: 640, height: 480, quality: 80))
        for (bytes, name) in [(png, "a.png"), (webp, "a.webp")] {
            do {
                _ = try PhotoAnalyzer.analyze(bytes, path: name, options: options)
                Issue.record("\(name) over the limit decoded")
            } catch {
                #expect(error.kind == .tooLarge)
            }
        }
    }

    @Test("a HEIF that is not one is corrupt, not a crash")
    func brokenHEIF() {
        let fake: [UInt8] = [0, 0, 0, 0x18] + Array("ftypheic".utf8) + [0, 0, 0, 0] + Array("mif1heic".utf8) + [0, 0, 0, 8, 0x6D, 0x65, 0x74, 0x61]
        do {
            _ = try PhotoAnalyzer.analyze(fake, path: "/x/fake.heic", options: AnalysisOptions())
            Issue.record("garbage HEIF decoded")
        } catch {
            #expect(error.kind == .corrupt || error.kind == .unsupported)
            #expect(error.message.contains("/x/fake.heic"))
        }
    }
}
