import Foundation
import Shared

/// The public keys allowed to connect (`cull serve --authorized DIR`): every `NAME.public` file
/// in the folder, under its NAME. Read at start and again on SIGHUP; a key removed from the
/// folder is refused from the next connection on.
enum AuthorizedKeys {
    /// The keys in `directory`, by key. Throws, naming the file, for an unreadable folder or a
    /// file that holds no key. Blocking file calls: call it off the cooperative pool.
    static func load(directory: String) throws -> [CurveKey: String] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory)
        } catch {
            throw CoordinatorError(description: "cannot read the authorised keys folder \(directory): \(error.localizedDescription)")
        }
        var keys: [CurveKey: String] = [:]
        // Bounded (rule 5): an allowlist is a handful of machines and people, not a data set.
        let files = names.filter { $0.hasSuffix(".public") && !$0.hasPrefix(".") }.sorted()
        guard files.count <= 10_000 else {
            throw CoordinatorError(description: "\(directory) holds \(files.count) .public files: at most 10,000 keys are read")
        }
        for file in files {
            let path = (directory as NSString).appendingPathComponent(file)
            let key: CurveKey
            do {
                key = try CurveKeyFiles.readPublic(path)
            } catch let failure as CurveKeyFiles.Failure {
                throw CoordinatorError(description: failure.description)
            }
            keys[key] = String(file.dropLast(".public".count))
        }
        return keys
    }
}
