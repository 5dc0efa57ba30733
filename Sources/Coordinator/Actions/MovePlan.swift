import Foundation
import Shared

/// One file `cull apply` is to move.
struct PlannedMove: Sendable, Equatable {
    var from: String
    var to: String
    /// What the analysis saw: the file is moved only if it is still that (sidecars: as found).
    var size: Int64
    var mtimeNs: Int64
    var sha256: [UInt8]
    var group: Int64
    var sidecarOf: String?
    /// Its hard links: moving one of several frees no space.
    var links: Int64 = 1
}

/// Which photos of a scan's groups `cull apply` moves, and where: the non-keepers of exact and
/// near groups (and of similar groups with `includeSimilar`), outside reference folders, not a
/// second path of a file already listed, not the kept half of a RAW + JPEG pair (`PairsPolicy`
/// decides which half that is before the plan is made); each to the same path under `target` as under the
/// library's root. Pure: the file system is looked at when the plan is carried out.
struct MovePlan: Sendable {
    var library: String
    var target: String
    var moves: [PlannedMove]

    init(_ reply: Cull_V1_GroupsReply, target: String, includeSimilar: Bool) throws(ActionError) {
        library = reply.root
        self.target = target
        guard reply.scanState == "done" else {
            throw ActionError("scan \(reply.scanID) is \(reply.scanState): only a finished scan's groups can be acted on; `cull status` lists the scans")
        }
        guard library.hasPrefix("/") else { throw ActionError("scan \(reply.scanID) has no library folder recorded") }
        let libraryPrefix = library == "/" ? "/" : library + "/"
        if target == library || target.hasPrefix(libraryPrefix) {
            throw ActionError("--move-to \(target) is inside the library \(library): a later scan would find the moved photos again; choose a folder outside it")
        }
        if library.hasPrefix(target == "/" ? "/" : target + "/") {
            throw ActionError("--move-to \(target) holds the library \(library); choose a folder outside it")
        }
        var moves: [PlannedMove] = []
        var planned = Set<String>()
        for group in reply.groups where group.kind != "similar" || includeSimilar {
            for member in group.members where !member.keeper && !member.reference && !MemberRelation.neverMoving.contains(member.relation) {
                // A photo in two groups (a keeper standing in a similar group) moves once.
                guard member.path.hasPrefix(libraryPrefix), planned.insert(member.path).inserted else { continue }
                moves.append(PlannedMove(
                    from: member.path, to: Self.destination(of: member.path, library: library, target: target),
                    size: Int64(member.fileSize), mtimeNs: member.mtimeNs, sha256: [UInt8](member.sha256),
                    group: group.groupID, links: Int64(max(1, member.links))))
            }
        }
        // The keeper of a duplicate group stays, also where a similar group lists it as a shot.
        let keepers = Set(reply.groups.filter { $0.kind != "similar" }.flatMap { $0.members.filter(\.keeper).map(\.path) })
        self.moves = moves.filter { !keepers.contains($0.from) }
    }

    /// `target` + the path below the library's root.
    static func destination(of path: String, library: String, target: String) -> String {
        let relative = path.dropFirst(library == "/" ? 1 : library.count + 1)
        return (target == "/" ? "" : target) + "/" + relative
    }

    /// Bytes moving the plan's photos frees (files with other hard links free none).
    var bytesFreed: Int64 { moves.filter { $0.links <= 1 }.reduce(0) { $0 + $1.size } }
}
