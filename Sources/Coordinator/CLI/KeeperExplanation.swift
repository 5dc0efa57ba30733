import Shared

/// Keepers and copies in words, for the group listings: "camera original, Canon EOS 80D,
/// 2019-07-14 10:02" and "1 identical copy, 3 edited copies".
enum KeeperExplanation {
    /// Why the group's keeper was chosen, with what identifies it; "" for groups stored
    /// before keepers had reasons.
    static func reason(_ group: Cull_V1_Group) -> String {
        guard let keeper = group.members.first(where: \.keeper), !group.keeperReason.isEmpty else { return "" }
        var words: String
        switch group.keeperReason {
        case "reference": words = "in a reference folder"
        case "original": words = "camera original"
        case "not upscaled": words = "not upscaled (the larger copies have no more detail than the camera original)"
        case "not bordered": words = "not bordered (the larger copies are this picture with borders added)"
        case "pixels": words = "most pixels (\(keeper.width)x\(keeper.height))"
        case "earliest": words = "earliest capture"
        case "largest": words = "largest file (\(GroupsFormatter.byteCount(keeper.fileSize)))"
        case "oldest": words = "the file modified first"
        case "path": words = group.kind == "exact" ? "identical copies: the shortest path" : "the shortest path (nothing else told them apart)"
        case "pairs": words = RawJPEGPairs.half(of: keeper.path) == .raw ? "the RAW of its RAW + JPEG pair (--pairs keep-raw)"
                                                                         : "the JPEG of its RAW + JPEG pair (--pairs keep-jpeg)"
        default: words = group.keeperReason
        }
        if group.keeperReason != "reference" && keeper.reference { words += "; in a reference folder" }
        if group.keeperReason != "original" && keeper.cameraOriginal { words += "; camera original" }
        if !keeper.camera.isEmpty { words += ", \(keeper.camera)" }
        if !keeper.captureTime.isEmpty { words += ", \(captureTime(keeper.captureTime))" }
        return words
    }

    /// What the other members are: "1 identical copy, 3 edited copies, 1 in a reference
    /// folder (kept)"; "2 other shots" for similar groups.
    static func others(_ group: Cull_V1_Group) -> String {
        let others = group.members.filter { !$0.keeper }
        if group.kind == "similar" { return count(others.count, "other shot", "other shots") }
        var parts: [String] = []
        let kept = others.filter(\.reference)
        let removable = others.filter { !$0.reference }
        for (relation, one, many) in [("identical", "identical copy", "identical copies"), ("edited copy", "edited copy", "edited copies"),
                                      ("upscaled copy", "upscaled copy", "upscaled copies"),
                                      (PairsPolicy.otherHalf, "other half of a RAW + JPEG pair", "other halves of RAW + JPEG pairs")] {
            let n = removable.filter { $0.relation == relation }.count
            if n > 0 { parts.append(count(n, one, many)) }
        }
        let pairs = removable.filter { $0.relation == MemberRelation.rawJPEGPair.rawValue }.count
        if pairs > 0 { parts.append(count(pairs, "half of a RAW + JPEG pair (kept)", "halves of RAW + JPEG pairs (kept)")) }
        let known = ["identical", "edited copy", "upscaled copy", "same file", PairsPolicy.otherHalf, MemberRelation.rawJPEGPair.rawValue]
        let unknown = removable.filter { !known.contains($0.relation) }.count
        if unknown > 0 { parts.append(count(unknown, "copy", "copies")) }
        if !kept.isEmpty { parts.append("\(kept.count) in a reference folder (kept)") }
        let links = others.filter { $0.relation == "same file" && !$0.reference }.count
        if links > 0 { parts.append(count(links, "other path of a file listed (a link: kept)", "other paths of files listed (links: kept)")) }
        return parts.joined(separator: ", ")
    }

    /// EXIF "2019:07:14 10:02:33" as "2019-07-14 10:02"; anything else as written.
    static func captureTime(_ exif: String) -> String {
        let characters = Array(exif)
        guard characters.count >= 16, characters[4] == ":", characters[7] == ":" else { return exif }
        return String(characters[0..<4]) + "-" + String(characters[5..<7]) + "-" + String(characters[8..<10]) + " " + String(characters[11..<16])
    }

    private static func count(_ n: Int, _ one: String, _ many: String) -> String { "\(n) \(n == 1 ? one : many)" }
}
