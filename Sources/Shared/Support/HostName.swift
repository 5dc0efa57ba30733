import Foundation

/// This machine's name, from the kernel (`gethostname`, a plain read of the UTS name).
/// Foundation's `ProcessInfo.hostName` may resolve the name through DNS, which can block for
/// seconds on a broken resolver; daemons must not do that on the cooperative pool (rule 1).
public enum HostName {
    public static var current: String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "localhost" }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return name.isEmpty ? "localhost" : name
    }
}
