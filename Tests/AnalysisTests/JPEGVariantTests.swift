@testable import Analysis
import CTurboJPEG
import Testing

/// Progressive and CMYK/YCCK JPEGs (issue 3): each decodes to the size and the pHash of the
/// same picture stored as a baseline YCbCr JPEG.
@Suite("JPEG variants: progressive, CMYK, YCCK", .timeLimit(.minutes(5)))
struct JPEGVariantTests {
    static let width = 640, height = 480
    static let scene = SyntheticPhoto.make(seed: 41, width: width, height: height)

    static func encode(_ options: JPEGEncoder.Options) throws -> [UInt8] {
        try JPEGEncoder.encode(rgb: scene.pixels, width: width, height: height, options: options)
    }

    static func baseline() throws -> PhotoFeatures {
        let jpeg = try JPEGEncoder.encode(rgb: scene.pixels, width: width, height: height, quality: 92)
        return try PhotoAnalyzer.analyze(jpeg, path: "/x/baseline.jpg", options: AnalysisOptions())
    }

    /// The markers of a JPEG up to its first scan, and the Adobe APP14 transform byte if any.
    static func structure(_ jpeg: [UInt8]) -> (markers: [UInt8], components: Int?, adobeTransform: UInt8?) {
        var markers: [UInt8] = [], components: Int?, transform: UInt8?
        var offset = 2
        while offset + 4 <= jpeg.count, jpeg[offset] == 0xFF {
            let marker = jpeg[offset + 1]
            markers.append(marker)
            let length = Int(jpeg[offset + 2]) << 8 | Int(jpeg[offset + 3])
            if marker == 0xDA { break }
            if [0xC0, 0xC1, 0xC2].contains(marker) { components = Int(jpeg[offset + 9]) }
            if marker == 0xEE, length >= 14, jpeg[(offset + 4)..<(offset + 9)].elementsEqual(Array("Adobe".utf8)) {
                transform = jpeg[offset + 15]
            }
            offset += 2 + length
        }
        return (markers, components, transform)
    }

    struct Variant: Sendable, CustomTestStringConvertible {
        let name: String
        let options: JPEGEncoder.Options
        let frameMarker: UInt8          // SOF0 baseline, SOF2 progressive
        let colorspace: TJCS
        let components: Int
        let adobeTransform: UInt8?      // APP14: 0 CMYK, 2 YCCK; nil: no Adobe marker
        var testDescription: String { name }
    }

    static let variants: [Variant] = [
        Variant(name: "progressive YCbCr", options: .init(quality: 92, progressive: true),
                frameMarker: 0xC2, colorspace: TJCS_YCbCr, components: 3, adobeTransform: nil),
        Variant(name: "Adobe YCCK", options: .init(quality: 92, colorSpace: .ycck),
                frameMarker: 0xC0, colorspace: TJCS_YCCK, components: 4, adobeTransform: 2),
        Variant(name: "progressive Adobe YCCK", options: .init(quality: 92, progressive: true, colorSpace: .ycck),
                frameMarker: 0xC2, colorspace: TJCS_YCCK, components: 4, adobeTransform: 2),
        Variant(name: "Adobe CMYK (inverted)", options: .init(quality: 92, colorSpace: .adobeCMYK),
                frameMarker: 0xC0, colorspace: TJCS_CMYK, components: 4, adobeTransform: 0),
        Variant(name: "progressive Adobe CMYK", options: .init(quality: 92, progressive: true, colorSpace: .adobeCMYK),
                frameMarker: 0xC2, colorspace: TJCS_CMYK, components: 4, adobeTransform: 0),
        Variant(name: "CMYK without Adobe marker (uninverted)", options: .init(quality: 92, colorSpace: .plainCMYK),
                frameMarker: 0xC0, colorspace: TJCS_CMYK, components: 4, adobeTransform: nil),
    ]

    @Test("decodes to the right size and within a few pHash bits of the baseline JPEG", arguments: variants)
    func variant(_ variant: Variant) throws {
        let jpeg = try Self.encode(variant.options)
        // The file is what it claims to be: frame type, components, Adobe marker, and what
        // libjpeg-turbo reads from it.
        let structure = Self.structure(jpeg)
        #expect(structure.markers.contains(variant.frameMarker), "markers \(structure.markers)")
        #expect(structure.components == variant.components)
        #expect(structure.adobeTransform == variant.adobeTransform)
        #expect(try JPEGDecoder.header(jpeg).colorspace == Int32(variant.colorspace.rawValue))

        let base = try Self.baseline()
        let features = try PhotoAnalyzer.analyze(jpeg, path: "/x/variant.jpg", options: AnalysisOptions())
        #expect(features.format == .jpeg)
        #expect(features.width == Self.width && features.height == Self.height)
        #expect(features.decodedWidth == base.decodedWidth && features.decodedHeight == base.decodedHeight,
                "DCT-scaled like the baseline: \(features.decodedWidth)x\(features.decodedHeight)")
        let distance = PerceptualHash.distance(features.pHash, base.pHash)
        #expect(distance <= 4, "pHash distance \(distance)")
        #expect(abs(features.meanLuma - base.meanLuma) < 3, "mean luma \(features.meanLuma) vs \(base.meanLuma)")
    }

    @Test("the Adobe marker decides the CMYK polarity: the same scans without it hash far away")
    func adobeInversionMatters() throws {
        // The negative control for the variants above: if the decoder got the polarity wrong,
        // this is how far the hashes would be. Stripping the APP14 segment from an Adobe CMYK
        // file leaves its inverted values to be read as uninverted ink.
        let base = try Self.baseline()
        var jpeg = try Self.encode(.init(quality: 92, colorSpace: .adobeCMYK))
        let marker = try #require((2..<(jpeg.count - 4)).first { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xEE })
        let length = Int(jpeg[marker + 2]) << 8 | Int(jpeg[marker + 3])
        jpeg.removeSubrange(marker..<(marker + 2 + length))
        #expect(Self.structure(jpeg).adobeTransform == nil)
        #expect(try JPEGDecoder.header(jpeg).colorspace == Int32(TJCS_CMYK.rawValue))
        let wrong = try PhotoAnalyzer.analyze(jpeg, path: "/x/stripped.jpg", options: AnalysisOptions())
        let distance = PerceptualHash.distance(wrong.pHash, base.pHash)
        #expect(distance > 16, "read with the wrong polarity the picture hashes far away (distance \(distance))")
    }

    /// Where each scan (SOS marker) of a JPEG starts.
    static func scanOffsets(_ jpeg: [UInt8]) -> [Int] {
        (0..<(jpeg.count - 1)).filter { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xDA }
    }

    @Test("a progressive JPEG cut off in the middle of a scan is corrupt (never a partial picture, never a crash)")
    func truncatedProgressive() throws {
        // libjpeg-turbo would return the scans it got, blurred, and a "Premature end of JPEG
        // file" warning; the decoder refuses that picture: its features would describe a blur.
        for colorSpace in [JPEGEncoder.ColorSpace.ycbcr, .ycck, .adobeCMYK] {
            let jpeg = try Self.encode(.init(quality: 92, progressive: true, colorSpace: colorSpace))
            let scans = Self.scanOffsets(jpeg)
            #expect(scans.count >= 6, "a progressive file has many scans: \(scans.count)")
            // Mid-way through the first (DC) scan, one in the middle and the last one.
            for index in Set([0, scans.count / 2, scans.count - 1]).sorted() {
                let end = index + 1 < scans.count ? scans[index + 1] : jpeg.count
                let cut = Array(jpeg.prefix((scans[index] + end) / 2))
                do {
                    let features = try PhotoAnalyzer.analyze(cut, path: "/x/cut-progressive.jpg", options: AnalysisOptions())
                    Issue.record("\(colorSpace) cut in scan \(index) of \(scans.count) decoded (\(features.width)x\(features.height))")
                } catch {
                    #expect(error.kind == .corrupt, "\(colorSpace), scan \(index): \(error)")
                    #expect(error.message.contains("/x/cut-progressive.jpg"))
                    #expect(error.message.contains("Premature end"), "the cause is named: \(error.message)")
                }
            }
        }
    }
}
