/// Writes TIFF-structured blocks (little-endian, "II", as most cameras write their EXIF): a
/// chain of IFDs whose entries are sorted by tag, values of more than four bytes stored after
/// each IFD, and an optional trailing blob (an EXIF thumbnail) that entries can point at.
public struct TIFFWriter {
    public enum FieldType: UInt16, Sendable {
        case byte = 1, ascii = 2, short = 3, long = 4, rational = 5, undefined = 7, srational = 10
    }

    public struct Entry: Sendable {
        public let tag: UInt16
        public let type: FieldType
        public let count: UInt32
        public let value: [UInt8]

        public static func ascii(_ tag: UInt16, _ text: String) -> Entry {
            let bytes = Array(text.utf8) + [0]
            return Entry(tag: tag, type: .ascii, count: UInt32(bytes.count), value: bytes)
        }

        public static func short(_ tag: UInt16, _ value: UInt16) -> Entry {
            Entry(tag: tag, type: .short, count: 1, value: littleEndian(value))
        }

        public static func long(_ tag: UInt16, _ value: UInt32) -> Entry {
            Entry(tag: tag, type: .long, count: 1, value: littleEndian(value))
        }

        public static func rational(_ tag: UInt16, _ numerator: UInt32, _ denominator: UInt32) -> Entry {
            Entry(tag: tag, type: .rational, count: 1, value: littleEndian(numerator) + littleEndian(denominator))
        }

        public static func srational(_ tag: UInt16, _ numerator: Int32, _ denominator: Int32) -> Entry {
            Entry(tag: tag, type: .srational, count: 1,
                  value: littleEndian(UInt32(bitPattern: numerator)) + littleEndian(UInt32(bitPattern: denominator)))
        }

        public static func undefined(_ tag: UInt16, _ bytes: [UInt8]) -> Entry {
            Entry(tag: tag, type: .undefined, count: UInt32(bytes.count), value: bytes)
        }
    }

    public static let headerSize = 8

    /// Bytes an IFD takes with the out-of-line values that follow it.
    public static func size(of entries: [Entry]) -> Int {
        2 + 12 * entries.count + 4 + entries.reduce(0) { $0 + outOfLineSize($1) }
    }

    /// The block: header, then `ifds` one after the other starting at offset 8, then `trailer`.
    /// `nextIFD[i]` is the offset IFD i links to (0: none), as the chain IFD0 -> IFD1 needs;
    /// offsets come from `size(of:)`, which callers use to fill in pointer entries.
    public static func block(ifds: [[Entry]], nextIFD: [UInt32], trailer: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x49, 0x49, 42, 0] + littleEndian(UInt32(headerSize))
        for (index, entries) in ifds.enumerated() {
            let sorted = entries.sorted { $0.tag < $1.tag }
            let start = out.count
            var dataOffset = start + 2 + 12 * sorted.count + 4
            var data: [UInt8] = []
            out += littleEndian(UInt16(sorted.count))
            for entry in sorted {
                out += littleEndian(entry.tag) + littleEndian(entry.type.rawValue) + littleEndian(entry.count)
                if entry.value.count <= 4 {
                    out += entry.value + [UInt8](repeating: 0, count: 4 - entry.value.count)
                } else {
                    out += littleEndian(UInt32(dataOffset))
                    data += entry.value
                    // Values start on word boundaries, as the TIFF specification asks.
                    if entry.value.count % 2 == 1 { data.append(0) }
                    dataOffset += outOfLineSize(entry)
                }
            }
            out += littleEndian(nextIFD[index])
            out += data
            precondition(out.count == start + size(of: entries))
        }
        return out + trailer
    }

    private static func outOfLineSize(_ entry: Entry) -> Int {
        entry.value.count <= 4 ? 0 : (entry.value.count + 1) & ~1
    }
}

func littleEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
    withUnsafeBytes(of: value.littleEndian) { Array($0) }
}
