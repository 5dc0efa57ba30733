import ArgumentParser
import Foundation
import Shared

struct KeygenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keygen",
        abstract: "Makes a CURVE key pair: PATH.secret (mode 0600) and PATH.public.",
        discussion: """
            One pair for the coordinator (`cull serve --key PATH.secret`; its PATH.public goes to every \
            worker as --server-key) and one per worker machine (`cull-worker --key PATH.secret`; its \
            PATH.public goes into the coordinator's --authorized folder, named after the machine). \
            Existing files are never overwritten.
            """
    )

    @Argument(help: ArgumentHelp("Where the keys go, without the suffix: /etc/cull/nas writes /etc/cull/nas.secret and /etc/cull/nas.public.", valueName: "path"))
    var path: String

    func run() async throws {
        let path = self.path
        do {
            let publicKey = try await onOwnThread { () throws -> CurveKey in
                let pair = try CurveKeyPair.generate()
                try CurveKeyFiles.write(pair, to: path)
                return pair.publicKey
            }
            print("wrote \(path).secret (keep it on this machine, mode 0600) and \(path).public (\(publicKey.z85))")
        } catch let failure as CurveKeyFiles.Failure {
            FileHandle.standardError.write(Data("cull keygen: \(failure.description)\n".utf8))
            throw ExitCode(1)
        }
    }
}
