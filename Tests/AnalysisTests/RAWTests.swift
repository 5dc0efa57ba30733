@testable import Analysis
import Testing

/// Issue 12, point 1: camera raw files through LibRaw, with DNGs the tests write (`SampleDNG`):
/// the sensor data developed at half size, or the camera's preview when it is trusted; a
/// refused preview falls back to the sensor data; camera metadata kept; damaged files corrupt.
@Suite("Camera raw (LibRaw)", .timeLimit(.minutes(5)))
struct RAWTests {
    let scene = SyntheticPhoto.make(seed: 51, width: 640, height: 480)

    func analyze(_ bytes: [UInt8], previews: Bool) throws(AnalysisFailure) -> PhotoFeatures {
        var options = AnalysisOptions()
        options.usePreviews = previews
        return try PhotoAnalyzer.analyze(bytes, path: "/lib/DSC_0001.dng", options: options)
    }

    func jpegFeatures() throws -> PhotoFeatures {
        let jpeg = try JPEGEncoder.encode(rgb: scene.pixels, width: 640, height: 480, quality: 92)
        return try PhotoAnalyzer.analyze(jpeg, path: "/lib/DSC_0001.jpg", options: AnalysisOptions())
    }

    @Test("a DNG is detected as raw (DNGVersion), not as a TIFF; other cameras' raws by their signatures")
    func detection() throws {
        #expect(PhotoFormat.detectRefined(try SampleDNG.encode(scene)) == .raw)
        #expect(PhotoFormat.detectRefined(SampleTIFF.encode(scene)) == .tiff)
        #expect(PhotoFormat.detect(Array("FUJIFILMCCD-RAW 0201".utf8)) == .raw)
        #expect(PhotoFormat.detect([0x49, 0x49, 0x55, 0x00] + [UInt8](repeating: 0, count: 12)) == .raw)
        #expect(PhotoFormat.detect([0x49, 0x49, 0x2A, 0x00, 0x10, 0, 0, 0] + Array("CR".utf8) + [2, 0, 0, 0, 0, 0]) == .raw)
    }

    @Test("the sensor data, developed at half size, hashes like the JPEG of the same picture; camera and time are kept")
    func sensorData() throws {
        var options = SampleDNG.Options()
        options.captureTime = "2024:06:01 11:00:00"
        let features = try analyze(try SampleDNG.encode(scene, options: options), previews: false)
        #expect(features.format == .raw && features.width == 640 && features.height == 480)
        #expect(!features.fromPreview)
        #expect(features.decodedWidth == 341 && features.decodedHeight == 256, "half size, then reduced as every format")
        let distance = PerceptualHash.distance(features.pHash, try jpegFeatures().pHash)
        #expect(distance <= 4, "distance \(distance)")
        #expect(features.metadata.cameraMake == "Cull" && features.metadata.cameraModel == "Test Camera")
        #expect(features.metadata.captureTime == "2024:06:01 11:00:00")
    }

    @Test("with previews, a large enough preview stands in (marked, for verification); a refused one falls back to the sensor data")
    func previews() throws {
        let trusted = try analyze(try SampleDNG.encode(scene), previews: true)
        #expect(trusted.fromPreview && trusted.width == 640 && trusted.height == 480)
        #expect(PerceptualHash.distance(trusted.pHash, try jpegFeatures().pHash) <= 4)
        // 64x48 is under the 120-pixel short side a preview needs: the sensor data decides.
        let refused = try analyze(try SampleDNG.encode(scene, options: SampleDNG.Options(preview: (64, 48))), previews: true)
        #expect(!refused.fromPreview && refused.decodedHeight == 256)
        #expect(PerceptualHash.distance(refused.pHash, try jpegFeatures().pHash) <= 4)
        let none = try analyze(try SampleDNG.encode(scene, options: SampleDNG.Options(preview: nil)), previews: true)
        #expect(!none.fromPreview)
    }

    @Test("the orientation the camera recorded turns the picture, as EXIF's does")
    func orientation() throws {
        let features = try analyze(try SampleDNG.encode(scene, options: SampleDNG.Options(orientation: 6)), previews: false)
        #expect(features.width == 480 && features.height == 640 && features.metadata.orientation == 6)
    }

    @Test("a truncated or damaged raw file is corrupt, with a message naming the file")
    func damaged() throws {
        let dng = try SampleDNG.encode(scene, options: SampleDNG.Options(preview: nil))
        for broken in [Array(dng.prefix(dng.count / 2)), Array(dng.prefix(600))] {
            do {
                _ = try analyze(broken, previews: false)
                Issue.record("a damaged raw file of \(broken.count) bytes decoded")
            } catch {
                #expect(error.kind == .corrupt, "\(error.message)")
                #expect(error.message.contains("/lib/DSC_0001.dng"))
            }
        }
    }
}
