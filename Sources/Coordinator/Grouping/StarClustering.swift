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
/// 3. A centre left with no partner is no group.
///
/// So two photos share a group only if both are confirmed against its centre, or one of them
/// against most of the group.
enum StarClustering {
    /// Groups of indexes into `0..<count`, each listed centre first, then its partners in
    /// `order`; `order` holds every index once, the first to become a centre first; `pairs`
    /// are the confirmed pairs.
    static func clusters(count: Int, pairs: [(Int, Int)], order: [Int]) -> [[Int]] {
        var partners = [[Int]](repeating: [], count: count)
        for (a, b) in pairs where a != b {
            partners[a].append(b)
            partners[b].append(a)
        }
        var rank = [Int](repeating: 0, count: count)
        for (position, index) in order.enumerated() { rank[index] = position }
        var groupOf = [Int](repeating: -1, count: count)
        var groups: [[Int]] = []

        for photo in order where groupOf[photo] < 0 && !partners[photo].isEmpty {
            if let joined = groupByQuorum(photo, partners: partners[photo], groupOf: groupOf, groups: groups) {
                groupOf[photo] = joined
                groups[joined].append(photo)
                continue
            }
            let id = groups.count
            var members = [photo]
            groupOf[photo] = id
            for partner in partners[photo].sorted(by: { rank[$0] < rank[$1] }) where groupOf[partner] < 0 {
                groupOf[partner] = id
                members.append(partner)
            }
            groups.append(members)
        }
        return groups.filter { $0.count > 1 }
    }

    /// The group whose members the photo is confirmed with, at least half of them and two at
    /// least (the one with the most such members), if any.
    private static func groupByQuorum(_ photo: Int, partners: [Int], groupOf: [Int], groups: [[Int]]) -> Int? {
        var confirmed: [Int: Int] = [:]
        for partner in partners where groupOf[partner] >= 0 { confirmed[groupOf[partner], default: 0] += 1 }
        return confirmed
            .filter { group, count in count >= 2 && 2 * count >= groups[group].count }
            .max { $0.value != $1.value ? $0.value < $1.value : $0.key > $1.key }?.key
    }
}
