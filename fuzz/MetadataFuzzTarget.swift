// libFuzzer entry point for the metadata path (scripts/fuzz.sh metadata): photos' EXIF is
// untrusted. Each input is read as a JPEG (cull's marker walk, then libexif on its APP1 EXIF
// payload), as a bare TIFF structure (as a HEIF Exif item reaches libexif) and as an EXIF
// payload as it stands; none may crash, hang or read out of bounds. libexif itself is not
// instrumented for coverage; AddressSanitizer still checks the memory it reads through the
// intercepted calls and everything the Swift side does with what it returns.
@_cdecl("LLVMFuzzerTestOneInput")
public func metadataFuzzTarget(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    _ = JPEGMetadataReader.read(bytes)
    _ = JPEGMetadataReader.exifBlock(bytes)
    _ = ExifReader.read(tiff: bytes[...])
    _ = ExifReader.read(payload: ArraySlice(ExifReader.header + bytes))
    return 0
}
