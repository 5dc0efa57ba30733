/// When a photo was taken, from its EXIF DateTimeOriginal ("YYYY:MM:DD HH:MM:SS", as cameras
/// write it), SubSecTimeOriginal (".45") and OffsetTimeOriginal ("+02:00") when present: seconds on one scale, so that two
/// photos' times can be compared. Without an offset the time is the camera's wall clock: two
/// photos of one camera compare correctly, which is all grouping asks (shots of one moment).
enum CaptureTime {
    /// Seconds since 1970-01-01 00:00 at UTC (or at the camera's unknown zone), nil if `text` is
    /// not an EXIF date (empty, "0000:00:00 00:00:00", garbage). Read in place: grouping asks
    /// it of every photo of a scan.
    static func seconds(_ text: String) -> Double? {
        var text = text
        return text.withUTF8 { seconds(utf8: $0, wallClockOnly: false) }
    }

    /// The same of the first 19 bytes alone: the date and time as written, without a fraction or
    /// an offset (`SavedByEditor` compares DateTime, which has neither, with DateTimeOriginal).
    static func wallClockSeconds(_ text: String) -> Double? {
        var text = text
        return text.withUTF8 { seconds(utf8: $0, wallClockOnly: true) }
    }

    private static func seconds(utf8 bytes: UnsafeBufferPointer<UInt8>, wallClockOnly: Bool) -> Double? {
        guard bytes.count >= 19 else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for byte in bytes[range] {
                guard byte >= 48, byte <= 57 else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
              let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61, year > 0 else { return nil }
        var seconds = Double(daysSince1970(year: year, month: month, day: day)) * 86_400
            + Double(hour * 3600 + minute * 60 + second)
        if wallClockOnly { return seconds }
        // ".45": SubSecTimeOriginal, the fraction of the second.
        var next = 19
        if next < bytes.count, bytes[next] == UInt8(ascii: ".") {
            var scale = 0.1
            next += 1
            while next < bytes.count, bytes[next] >= 48, bytes[next] <= 57 {
                seconds += Double(bytes[next] - 48) * scale
                scale /= 10
                next += 1
            }
        }
        // "+HH:MM" / "-HH:MM" after the time: local time minus the offset is UTC.
        if bytes.count >= next + 6, bytes[next] == UInt8(ascii: "+") || bytes[next] == UInt8(ascii: "-"),
           let offsetHours = number(next + 1..<next + 3), let offsetMinutes = number(next + 4..<next + 6) {
            let offset = Double(offsetHours * 3600 + offsetMinutes * 60)
            seconds += bytes[next] == UInt8(ascii: "+") ? -offset : offset
        }
        return seconds
    }

    /// Days from 1970-01-01 to the date, proleptic Gregorian (Howard Hinnant's days_from_civil).
    private static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
