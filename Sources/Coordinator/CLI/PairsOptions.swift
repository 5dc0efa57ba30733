import ArgumentParser
import Shared

/// Which half of a camera's RAW + JPEG pair may go (`RawJPEGPairs`): by default neither.
enum PairsPolicy: String, CaseIterable, ExpressibleByArgument, Sendable {
    case keepBoth = "keep-both"
    case keepRaw = "keep-raw"
    case keepJPEG = "keep-jpeg"

    /// The relation of the half `--pairs` lets go: could go, like an edited copy.
    static let otherHalf = "other half of a pair"

    /// `groups` as the listing and `cull apply` see them: with keep-raw (keep-jpeg), in each
    /// duplicate group the JPEG (RAW) of a pair whose RAW (JPEG) is there too becomes the
    /// `otherHalf` of the pair, outside a reference folder, and where it was the keeper its
    /// partner keeps instead (keeper reason `pairs`). keep-both changes nothing: grouping
    /// already calls the half that is not the keeper a `raw+jpeg pair`, which never goes.
    func applied(to groups: [Cull_V1_Group]) -> [Cull_V1_Group] {
        guard self != .keepBoth else { return groups }
        let kept: RawJPEGPairs.Half = self == .keepRaw ? .raw : .picture
        return groups.map { group in
            guard group.kind != "similar" else { return group }
            var group = group
            let partners = RawJPEGPairs.partners(group.members.map(\.path))
            for (index, partner) in partners.sorted(by: { $0.key < $1.key }) where RawJPEGPairs.half(of: group.members[index].path) != kept {
                guard !group.members[index].reference else { continue }
                if group.members[index].keeper {
                    group.members[index].keeper = false
                    group.members[partner].keeper = true
                    group.members[partner].relation = "keeper"
                    group.keeperReason = "pairs"
                }
                group.members[index].relation = Self.otherHalf
            }
            return group
        }
    }
}

/// `--pairs`, for the commands that list groups or act on them.
struct PairsOptions: ParsableArguments {
    @Option(help: ArgumentHelp("A camera's RAW and its JPEG of one shot: keep-both (neither could go), keep-raw (the JPEG could go) or keep-jpeg (the RAW could go).",
                               valueName: "keep-both|keep-raw|keep-jpeg"))
    var pairs: PairsPolicy = .keepBoth
}
