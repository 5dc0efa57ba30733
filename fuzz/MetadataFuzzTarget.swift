// libFuzzer entry point for the metadata path (scripts/fuzz.sh metadata): the EXIF and TIFF
// readers parse untrusted bytes from every photo. Each input is read as a JPEG (its APP1 EXIF
// block) and as a bare TIFF structure; neither may crash, hang or read out of bounds.
@_cdecl("LLVMFuzzerTestOneInput")
public func metadataFuzzTarget(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    _ = JPEGMetadataReader.read(bytes)
    _ = JPEGMetadataReader.exifBlock(bytes)
    _ = TIFFMetadataReader.read(bytes[...])
    return 0
}
