/// A photo's exposure settings as one key: photos taken at one time (to the second, or to the
/// fraction where the camera writes one) with other settings are the frames of a bracket, other
/// shots of one moment, never edits of one photo (`GroupingPhoto.isOtherShot`). An edit keeps
/// the EXIF it was made from, settings and all.
enum ShotSettings {
    /// 0 when nothing is known (no EXIF, or a row from before workers sent the settings);
    /// otherwise the settings rounded (exposure time to the microsecond, f-number and exposure
    /// bias to a hundredth, ISO whole) and mixed into 64 bits (never 0). Values that are no
    /// setting (not finite, out of any camera's range) count as absent.
    static func key(exposureTime: Double?, fNumber: Double?, iso: Int?, exposureBias: Double?) -> UInt64 {
        func rounded(_ value: Double?, scale: Double, range: ClosedRange<Double>) -> Int64? {
            guard let value, value.isFinite, range.contains(value) else { return nil }
            return Int64((value * scale).rounded())
        }
        let parts = [rounded(exposureTime, scale: 1e6, range: 1e-6...3_600), rounded(fNumber, scale: 100, range: 0.1...1_000),
                     iso.flatMap { (1...10_000_000).contains($0) ? Int64($0) : nil }, rounded(exposureBias, scale: 100, range: -100...100)]
        // Exposure bias alone (0 EV is what a worker sends when it has none) says nothing.
        guard parts[0] != nil || parts[1] != nil || parts[2] != nil else { return 0 }
        var key: UInt64 = 0x9E37_79B9_7F4A_7C15
        for part in parts {
            key = (key ^ UInt64(bitPattern: part ?? Int64.min)) &* 0xBF58_476D_1CE4_E5B9
            key ^= key >> 31
        }
        return key == 0 ? 1 : key
    }
}

extension GroupingPhoto {
    /// Whether both say when they were taken and they are different shots: taken at different
    /// times, or at one time with other exposure settings (a bracket's frames, when the camera
    /// writes no fraction of the second to tell them by). Different shots whatever they look like.
    func isOtherShot(than other: GroupingPhoto) -> Bool {
        guard let taken = captureTime, let otherTaken = other.captureTime else { return false }
        return taken != otherTaken || exposure != 0 && other.exposure != 0 && exposure != other.exposure
    }
}
