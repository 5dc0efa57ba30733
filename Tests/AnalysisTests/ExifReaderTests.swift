@testable import Analysis
import Testing

/// Metadata through libexif (`ExifReader`): what a camera's EXIF block says, read from a JPEG's
/// APP1 segment and from a bare TIFF block as a HEIF Exif item holds it.
@Suite("EXIF through libexif", .timeLimit(.minutes(5)))
struct ExifReaderTests {
    let thumbnail: [UInt8]
    let block: [UInt8]

    init() throws {
        let small = SyntheticPhoto.make(seed: 11, width: 160, height: 120)
        thumbnail = try JPEGEncoder.encode(rgb: small.pixels, width: 160, height: 120, quality: 80)
        var shot = CameraEXIF.Shot(width: 4000, height: 3000, captureTime: "2024:06:01 10:02:03")
        shot.subSeconds = "45"
        block = CameraEXIF.block(for: shot, thumbnail: thumbnail)
    }

    @Test("a camera JPEG's EXIF: camera, capture time with its fraction and UTC offset, orientation and the thumbnail's bytes")
    func cameraJPEG() throws {
        let image = SyntheticPhoto.make(seed: 12, width: 320, height: 240)
        let jpeg = try JPEGEncoder.encode(rgb: image.pixels, width: 320, height: 240, quality: 85, exif: block)
        let metadata = JPEGMetadataReader.read(jpeg)
        #expect(metadata.cameraMake == "Cull Bench Optics" && metadata.cameraModel == "CB-12 (synthetic 12 MP)")
        #expect(metadata.captureTime == "2024:06:01 10:02:03.45+02:00")
        #expect(metadata.orientation == 1)
        #expect(metadata.thumbnail == thumbnail)
        #expect(ExifReader.read(tiff: block[...]) == metadata, "a HEIF Exif item (the bare TIFF block) reads the same")
    }

    @Test("Software and DateTime (ModifyDate) as written: a camera's, and an editor's export that kept the camera's EXIF")
    func softwareAndModifyTime() throws {
        let camera = ExifReader.read(tiff: block[...])
        #expect(camera.software == "cull-bench" && camera.modifyTime == "2024:06:01 10:02:03")
        var export = CameraEXIF.Shot(width: 4000, height: 3000, captureTime: "2024:06:01 10:02:03")
        export.subSeconds = "45"
        export.software = "Adobe Photoshop Lightroom Classic 13.0 (Windows)"
        export.modifyTime = "2024:06:03 21:14:55"
        let exported = ExifReader.read(tiff: CameraEXIF.block(for: export, thumbnail: thumbnail)[...])
        #expect(exported.software == "Adobe Photoshop Lightroom Classic 13.0 (Windows)" && exported.modifyTime == "2024:06:03 21:14:55")
        #expect(exported.cameraMake == camera.cameraMake && exported.captureTime == camera.captureTime)
    }

    @Test("exposure settings: ExposureTime, FNumber, ISO, and ExposureBiasValue when written (a bracket's frame at -2/3 EV)")
    func exposureSettings() throws {
        let camera = ExifReader.read(tiff: block[...])
        #expect(camera.exposureTime == 1.0 / 125 && camera.fNumber == 5.6 && camera.iso == 200 && camera.exposureBias == nil)
        var frame = CameraEXIF.Shot(width: 4000, height: 3000, captureTime: "2024:06:01 10:02:03")
        frame.exposureTime = (1, 200)
        frame.exposureBias = (-2, 3)
        let read = ExifReader.read(tiff: CameraEXIF.block(for: frame, thumbnail: thumbnail)[...])
        #expect(read.exposureTime == 1.0 / 200 && read.exposureBias == -2.0 / 3)
    }

    @Test("a block cut short keeps what lies before the cut; no block, or another APP1, reads as nothing")
    func partialBlocks() throws {
        // IFD0 and the Exif IFD come first, the thumbnail last: cut inside the thumbnail.
        let cut = ExifReader.read(tiff: block[0..<(block.count - thumbnail.count / 2)])
        #expect(cut.cameraMake == "Cull Bench Optics" && cut.captureTime != nil)
        #expect(cut.thumbnail == nil, "a thumbnail past the end of the block is not handed on")
        #expect(ExifReader.read(payload: Array("XMP\0not exif".utf8)[...]) == PhotoMetadata())
        let image = SyntheticPhoto.make(seed: 13, width: 64, height: 48)
        #expect(JPEGMetadataReader.read(try JPEGEncoder.encode(rgb: image.pixels, width: 64, height: 48, quality: 80)) == PhotoMetadata())
    }
}
