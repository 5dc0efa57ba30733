// libFuzzer entry point for the whole analysis of a file (scripts/fuzz.sh analyzer): format
// detection, every decoder (libjpeg-turbo, libpng, libwebp, libheif, libtiff, LibRaw through
// cull's wrappers), metadata and features, with previews on and off, and the head-only path
// (`analyzeHead`: the input taken as the head of a larger file, as a worker reads a JPEG or raw
// file over a network mount). A damaged input must come back as an `AnalysisFailure` or a
// request for the whole file, never a crash or a hang.
@_cdecl("LLVMFuzzerTestOneInput")
public func analyzerFuzzTarget(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    var options = AnalysisOptions()
    options.maxPixels = 4_000_000  // keeps each input's work small; the limit path is fuzzed too
    for usePreviews in [false, true] {
        options.usePreviews = usePreviews
        _ = try? PhotoAnalyzer.analyze(bytes, path: "/fuzz/input", options: options)
    }
    _ = PhotoAnalyzer.analyzeHead(bytes, fileSize: 8 * size + 1, path: "/fuzz/input", options: options)
    return 0
}
