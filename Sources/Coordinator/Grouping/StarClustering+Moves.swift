extension StarClustering {
    /// Rule 5 (`StarClustering`): once the groups are formed, a member that is not a centre
    /// moves to the group it stands better with (`Standing`: confirmed with more of its
    /// members, two at least, or with as many and a larger share of them) when it may join that
    /// group as a photo joins any (confirmed with its centre, or with half of it), or becomes
    /// the centre of a new group of its partners left in no group, two at least, when it stands
    /// better with them (all of them are its partners). Centres take their partners in the order of most
    /// partners first, so a photo confirmed with a look-alike that has more partners than it
    /// (another export of the same picture) went to that look-alike's group, and its own edited
    /// copies, confirmed with it but not with the look-alike, were left to a group of their own
    /// or to none: the pairs a group keeps are fewer than they could be, and the group of
    /// copies was listed without the photo they were made from. The move keeps more confirmed
    /// pairs inside groups and never chains: the photo is confirmed with its new group's centre,
    /// or with half of it, as on any join.
    ///
    /// A member stays where it is when its group would keep fewer than two members, when it is
    /// `settled` (an anchor whose partners the group took, a photo in conflicts or a bridge),
    /// when it joined by quorum, or when a member that joined by quorum is confirmed with it
    /// (that member's quorum counted it); a member that moved into a group without being
    /// confirmed with its centre counts as joined by quorum. One pass, groups and members in order.
    static func movedToMostConfirmed(_ groups: inout [[Int]], groupOf: inout [Int], partners: [[Int]], joinedByQuorum: inout [Bool], rank: [Int],
                                     settled: (Int) -> Bool, fits: (Int, [Int]) -> Bool) {
        for group in groups.indices {
            var position = 1
            while position < groups[group].count {
                let photo = groups[group][position]
                guard groups[group].count > 2, !settled(photo), !joinedByQuorum[photo],
                      !partners[photo].contains(where: { groupOf[$0] == group && joinedByQuorum[$0] }),
                      let move = bestMove(photo, from: group, groups: groups, groupOf: groupOf, partners: partners, rank: rank,
                                          settled: settled, fits: fits) else {
                    position += 1
                    continue
                }
                groups[group].remove(at: position)
                switch move {
                case .join(let other):
                    // Joined without its new centre, it holds its place by quorum: the members
                    // it counted stay for it, as for any quorum joiner.
                    joinedByQuorum[photo] = !partners[photo].contains(groups[other][0])
                    groups[other].append(photo)
                    groupOf[photo] = other
                case .centre(let free):
                    for member in [photo] + free { groupOf[member] = groups.count }
                    groups.append([photo] + free)
                }
            }
        }
    }

    private enum Move {
        /// Into this group.
        case join(Int)
        /// The centre of a new group of these partners, in no group before.
        case centre([Int])
    }

    /// How a photo stands with a group: how many of its members it is confirmed with, then what
    /// share of them. Of two groups holding as many of its partners, the one it is confirmed
    /// with more completely is the tighter home (as `groupByQuorum` prefers the largest share).
    private struct Standing: Comparable {
        let count: Int
        let share: Double

        init(count: Int, of members: Int) {
            self.count = count
            share = members > 0 ? Double(count) / Double(members) : 0
        }

        static func < (a: Standing, b: Standing) -> Bool { (a.count, a.share) < (b.count, b.share) }
    }

    /// Where `photo`, a member of `group`, stands better (`Standing`), if anywhere.
    private static func bestMove(_ photo: Int, from group: Int, groups: [[Int]], groupOf: [Int], partners: [[Int]], rank: [Int],
                                 settled: (Int) -> Bool, fits: (Int, [Int]) -> Bool) -> Move? {
        var confirmed: [Int: Int] = [:]
        var free: [Int] = []
        for partner in partners[photo] {
            if groupOf[partner] >= 0 {
                confirmed[groupOf[partner], default: 0] += 1
            } else if !settled(partner) {
                free.append(partner)
            }
        }
        let own = Standing(count: confirmed[group] ?? 0, of: groups[group].count - 1)
        var best: (group: Int, standing: Standing)?
        for (other, count) in confirmed where other != group && count >= 2 {
            let standing = Standing(count: count, of: groups[other].count)
            guard standing > own else { continue }
            if let best, standing < best.standing || (standing == best.standing && other > best.group) { continue }
            let members = groups[other]
            guard partners[photo].contains(members[0]) || 2 * count >= members.count, fits(photo, members) else { continue }
            best = (other, standing)
        }
        let freeStanding = Standing(count: free.count, of: free.count)
        if free.count >= 2 && freeStanding > own && best.map({ freeStanding > $0.standing }) ?? true {
            return .centre(free.sorted { rank[$0] < rank[$1] })
        }
        return best.map { .join($0.group) }
    }
}
