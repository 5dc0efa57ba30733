import CZeroMQ
import Foundation

/// A CURVE key (Curve25519, as libzmq's CURVE mechanism uses): 32 bytes, written to files as
/// 40 characters of Z85 (ZeroMQ's printable encoding), one key per file.
public struct CurveKey: Sendable, Hashable, CustomStringConvertible {
    public let bytes: [UInt8]

    public init?(bytes: [UInt8]) {
        guard bytes.count == 32 else { return nil }
        self.bytes = bytes
    }

    /// From 40 Z85 characters (surrounding white space ignored).
    public init?(z85 text: String) {
        let text = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.utf8.count == 40 else { return nil }
        var out = [UInt8](repeating: 0, count: 32)
        guard zmq_z85_decode(&out, text) != nil else { return nil }
        self.bytes = out
    }

    public var z85: String {
        var out = [CChar](repeating: 0, count: 41)
        _ = zmq_z85_encode(&out, bytes, 32)
        return String(decoding: out.prefix(40).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The first 8 characters of the Z85 form: enough to tell keys apart in a log line.
    public var description: String { String(z85.prefix(8)) + "…" }
}

/// A CURVE key pair: a secret key and the public key derived from it.
public struct CurveKeyPair: Sendable {
    public let publicKey: CurveKey
    public let secretKey: CurveKey

    /// A new random pair, from libzmq (which draws it from the system's random source).
    public static func generate() throws -> CurveKeyPair {
        var publicText = [CChar](repeating: 0, count: 41), secretText = [CChar](repeating: 0, count: 41)
        guard zmq_curve_keypair(&publicText, &secretText) == 0 else { throw ZMQError("zmq_curve_keypair") }
        let text = { (chars: [CChar]) in String(decoding: chars.prefix(40).map { UInt8(bitPattern: $0) }, as: UTF8.self) }
        guard let publicKey = CurveKey(z85: text(publicText)), let secretKey = CurveKey(z85: text(secretText)) else {
            throw ZMQError("zmq_curve_keypair")
        }
        return CurveKeyPair(publicKey: publicKey, secretKey: secretKey)
    }

    /// The pair of `secretKey`: its public key worked out from it.
    public init(secretKey: CurveKey) throws {
        var publicText = [CChar](repeating: 0, count: 41)
        guard zmq_curve_public(&publicText, secretKey.z85) == 0, let publicKey = CurveKey(
            z85: String(decoding: publicText.prefix(40).map { UInt8(bitPattern: $0) }, as: UTF8.self)) else {
            throw ZMQError("zmq_curve_public")
        }
        self.publicKey = publicKey
        self.secretKey = secretKey
    }

    private init(publicKey: CurveKey, secretKey: CurveKey) {
        self.publicKey = publicKey
        self.secretKey = secretKey
    }
}

/// Reading and writing key files (`cull keygen`). Blocking file calls: run them off the
/// cooperative pool.
public enum CurveKeyFiles {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Writes `path.secret` (mode 0600, created new: an existing key is never overwritten) and
    /// `path.public` (0644).
    public static func write(_ pair: CurveKeyPair, to path: String) throws {
        for (suffix, key, mode) in [(".secret", pair.secretKey, mode_t(0o600)), (".public", pair.publicKey, mode_t(0o644))] {
            let file = path + suffix
            let descriptor = open(file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
            guard descriptor >= 0 else {
                let reason = errno == EEXIST ? "it exists already (keys are never overwritten: remove it or choose another name)" : String(cString: strerror(errno))
                throw Failure(description: "cannot write \(file): \(reason)")
            }
            defer { close(descriptor) }
            let text = Array((key.z85 + "\n").utf8)
            guard Foundation.write(descriptor, text, text.count) == text.count, fsync(descriptor) == 0 else {
                throw Failure(description: "cannot write \(file): \(String(cString: strerror(errno)))")
            }
        }
    }

    /// The pair of the secret key in `file`. Refused if others than its owner may read it.
    public static func readSecret(_ file: String) throws -> CurveKeyPair {
        var info = stat()
        guard stat(file, &info) == 0 else { throw Failure(description: "cannot read the secret key \(file): \(String(cString: strerror(errno)))") }
        guard info.st_mode & 0o077 == 0 else {
            throw Failure(description: "the secret key \(file) may be read by others than its owner (mode \(String(info.st_mode & 0o777, radix: 8))): run `chmod 600 \(file)`")
        }
        return try CurveKeyPair(secretKey: try readKey(file, kind: "secret"))
    }

    /// The public key in `file`.
    public static func readPublic(_ file: String) throws -> CurveKey {
        try readKey(file, kind: "public")
    }

    private static func readKey(_ file: String, kind: String) throws -> CurveKey {
        guard let data = FileManager.default.contents(atPath: file) else {
            throw Failure(description: "cannot read the \(kind) key \(file): \(String(cString: strerror(errno)))")
        }
        guard data.count < 256, let key = CurveKey(z85: String(decoding: data, as: UTF8.self)) else {
            throw Failure(description: "\(file) holds no \(kind) key (40 characters of Z85, as `cull keygen` writes)")
        }
        return key
    }
}
