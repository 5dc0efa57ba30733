/// Groups from confirmed pairs without chaining: a photo joins a group only when it is
/// confirmed against the group itself, never through one weak link.
///
/// Union-find over confirmed pairs (what grouping did before) joins A to C whenever A looks like
/// B and B like C: borders, frames and captions on plain, low-detail photos made such chains
/// (one reported group held 68 files of 7 scenes). Here instead:
///
/// 1. Photos are taken in the caller's centre order (`Grouper`: most confirmed partners first,
///    then the better keeper). An unassigned photo with confirmed partners becomes the centre of
///    a new group, and every unassigned partner of it joins that group: each member is
///    confirmed against the centre itself.
/// 2. A photo not confirmed with a group's centre still joins it when it is confirmed with at
///    least half of the group's members, and with two at least (`groupByQuorum`): an edit of an
///    edit that drifted too far from the original, but not a look-alike of one member.
/// 3. A centre left with no partner is no group, and stays free: a bridge (below) may take it.
/// 4. Partners confirmed different from each other (`apart`, below; only a bridge that became
///    a centre has such partners) cannot all join: it takes first those apart from the fewest
///    of its other partners, then the nearest by `distance` (`inTakingOrder`).
/// 5. Once every group is formed, a member confirmed with more members of another group than
///    of its own (two at least), or with as many and a larger share of them, moves there if it
///    could have joined it (confirmed with its centre, or with half of it), or becomes the
///    centre of its partners left in no group when it stands better so (`movedToMostConfirmed`):
///    a photo a look-alike with more partners took goes back to its own edited copies.
///
/// With `isBetterAnchor` (the caller's order of photos by what a group is built around alone:
/// `Grouper`'s no added borders, then most pixels; by default no photo is better), a group
/// whose centre has a partner before it in that order, its **anchor** (the first such: the
/// photo the others were likely made from), also takes every unassigned partner of the anchor
/// when it forms. The centre of a
/// family of crops is often a crop: one from the middle of a picture overlaps most of the
/// others and has more partners than the original, and crops confirmed with the original but
/// not with it were left to form a second group.
///
/// So two photos share a group only if both are confirmed against its centre or its anchor
/// (itself confirmed against the centre), or one of them against most of the group (also
/// after a move).
///
/// Pairs confirmed *different* (`apart`: a colour variant of one design, which the gray layout
/// alone calls a copy) never share a group: a photo does not join a group holding one it is
/// apart from. A photo confirmed with both photos of such a pair (a black-and-white copy of a
/// design that exists in two palettes) is a **bridge**: no centre takes it; it joins, last, the
/// group it is confirmed with by the largest share of its members (half at least, one member
/// at least; on a tie, the group whose centre is nearest by `distance`: the gray copy of the
/// warm design goes with the warm one, though it is confirmed with every member of both). With
/// no such group, it becomes a centre itself, of its partners still free: an original
/// confirmed with a burst frame and with the frame's three edited copies apart from it is a
/// bridge, and its copies, whose only partner it is, wait for it (rule 3) and join it (rule 4).
///
/// A pair the colours alone call different (`distinct`, unlike an other shot shown to be one)
/// is apart only while its photos' own partners do not outvote it (`outvoted`): when most of
/// both photos' confirmed partners are confirmed with the other too, and hardly any is
/// confirmed different from it, the verdict is the one wrong link in a family, and taken as
/// none (each photo still joins a group only as any photo does).
enum StarClustering {
    /// Groups of indexes into `0..<count`, each listed centre first, then its partners in
    /// `order`; `order` holds every index that is in a pair of `pairs` once (it may hold the
    /// others too: they join no group), the first to become a centre first; `pairs` are the
    /// confirmed pairs, `apart` the pairs that must not share a group, `distinct` those that
    /// must not unless their partners outvote them (`outvoted`).
    static func clusters(count: Int, pairs: [(Int, Int)], order: [Int], apart: [(Int, Int)] = [], distinct: [(Int, Int)] = [],
                         isBetterAnchor: (Int, Int) -> Bool = { _, _ in false },
                         distance: (Int, Int) -> Int = { _, _ in 0 }) -> [[Int]] {
        var partners = [[Int]](repeating: [], count: count)
        for (a, b) in pairs where a != b {
            partners[a].append(b)
            partners[b].append(a)
        }
        // Sparse: pairs confirmed different are rare.
        var conflicts: [Int: Set<Int>] = [:]
        var bridge = [Bool](repeating: false, count: count)
        for (a, b) in apart + standing(distinct, apart: apart, partners: partners) where a != b {
            conflicts[a, default: []].insert(b)
            conflicts[b, default: []].insert(a)
            let partnersOfB = Set(partners[b])
            for photo in partners[a] where partnersOfB.contains(photo) { bridge[photo] = true }
        }
        let order = order.filter { !bridge[$0] } + order.filter { bridge[$0] }
        var rank = [Int](repeating: 0, count: count)
        for (position, index) in order.enumerated() { rank[index] = position }
        var groupOf = [Int](repeating: -1, count: count)
        var groups: [[Int]] = []
        // How members joined, for the moves after (`movedToMostConfirmed`): a member that joined
        // by quorum, and the anchors whose partners a group took, keep their groups as formed.
        var joinedByQuorum = [Bool](repeating: false, count: count)
        var anchors = Set<Int>()
        func fits(_ photo: Int, _ members: [Int]) -> Bool {
            guard let theirs = conflicts[photo] else { return true }
            return !members.contains(where: theirs.contains)
        }

        for photo in order where groupOf[photo] < 0 && !partners[photo].isEmpty {
            if let joined = groupByQuorum(photo, partners: partners[photo], groupOf: groupOf, groups: groups, minimum: bridge[photo] ? 1 : 2,
                                          fits: { fits(photo, groups[$0]) }, distance: { distance(photo, groups[$0][0]) }) {
                groupOf[photo] = joined
                groups[joined].append(photo)
                joinedByQuorum[photo] = true
                continue
            }
            let id = groups.count
            var members = [photo]
            groupOf[photo] = id
            func take(partnersOf hub: Int) {
                let open = partners[hub].filter { groupOf[$0] < 0 && !bridge[$0] }
                for partner in inTakingOrder(open, conflicts: conflicts, rank: rank, distance: { distance(hub, $0) })
                where groupOf[partner] < 0 && fits(partner, members) {
                    groupOf[partner] = id
                    members.append(partner)
                }
            }
            take(partnersOf: photo)
            // Asked only of the members of groups: a sort of every photo by anchor order cost a
            // million rows about 3 s of one thread.
            if let anchor = members.dropFirst().min(by: isBetterAnchor), isBetterAnchor(anchor, photo) {
                take(partnersOf: anchor)
                anchors.insert(anchor)
            }
            guard members.count > 1 else {
                // A centre that took nobody (its partners all taken, or bridges) is left free: a
                // bridge it is confirmed with may still take it (`groupByQuorum` would otherwise
                // weigh this group of one as much as a whole family).
                groupOf[photo] = -1
                continue
            }
            groups.append(members)
        }
        movedToMostConfirmed(&groups, groupOf: &groupOf, partners: partners, joinedByQuorum: &joinedByQuorum, rank: rank,
                             settled: { conflicts[$0] != nil || bridge[$0] || anchors.contains($0) }, fits: fits)
        return groups
    }

    /// The partners a centre (or its anchor) takes, in the order it takes them: those confirmed
    /// different from the fewest of the others first, then the closest by `distance` to the
    /// photo whose partners they are, then by `rank`. Of partners confirmed different from each other (a bridge's) only one side can
    /// join, and the side in fewer conflicts keeps more of them: a burst frame that passes for
    /// the photo but is apart from its three edited copies stays out, not the three copies. One
    /// against one, the closer stays: a mirror image or a bordered copy (0–1 bits from the
    /// photo through its mirror or content hash) rather than a burst frame that passed for the
    /// photo, which the centre order (no added borders first) would have put first. Without
    /// conflicts, rank order.
    private static func inTakingOrder(_ open: [Int], conflicts: [Int: Set<Int>], rank: [Int], distance: (Int) -> Int) -> [Int] {
        guard !conflicts.isEmpty, open.contains(where: { conflicts[$0] != nil }) else { return open.sorted { rank[$0] < rank[$1] } }
        let offered = Set(open)
        func conflictCount(_ photo: Int) -> Int { conflicts[photo].map { $0.intersection(offered).count } ?? 0 }
        return open.map { (photo: $0, conflicts: conflictCount($0), distance: distance($0)) }
            .sorted { ($0.conflicts, $0.distance, rank[$0.photo]) < ($1.conflicts, $1.distance, rank[$1.photo]) }
            .map(\.photo)
    }

    /// The group whose members the photo is confirmed with, at least half of them and `minimum`
    /// at least (the one with the largest share of such members, then the nearest centre by
    /// `distance`), among those it `fits`, if any.
    private static func groupByQuorum(_ photo: Int, partners: [Int], groupOf: [Int], groups: [[Int]], minimum: Int,
                                      fits: (Int) -> Bool, distance: (Int) -> Int) -> Int? {
        var confirmed: [Int: Int] = [:]
        for partner in partners where groupOf[partner] >= 0 { confirmed[groupOf[partner], default: 0] += 1 }
        let candidates = confirmed.filter { group, count in count >= minimum && 2 * count >= groups[group].count && fits(group) }
        func share(_ group: Int) -> Double { Double(candidates[group]!) / Double(groups[group].count) }
        guard let best = candidates.keys.map(share).max() else { return nil }
        return candidates.keys.filter { share($0) == best }.min { (distance($0), $0) < (distance($1), $1) }
    }
}
