extension StarClustering {
    /// Rule 5 (`StarClustering`): once the groups are formed, a member that is not a centre
    /// moves to the group holding more of its confirmed partners than its own does, two at
    /// least, when it may join that group as a photo joins any (confirmed with its centre, or
    /// with half of it), or becomes the centre of a new group of its partners left in no group,
    /// two at least, when they are more. Centres take their partners in the order of most
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
    /// (that member's quorum counted it). One pass, groups and members in order.
    static func movedToMostConfirmed(_ groups: inout [[Int]], groupOf: inout [Int], partners: [[Int]], joinedByQuorum: [Bool], rank: [Int],
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

    /// Where `photo`, a member of `group`, keeps more of its confirmed partners, if anywhere.
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
        let own = confirmed[group] ?? 0
        var best: (group: Int, count: Int)?
        for (other, count) in confirmed where other != group && count >= 2 && count > own {
            if let best, count < best.count || (count == best.count && other > best.group) { continue }
            let members = groups[other]
            guard partners[photo].contains(members[0]) || 2 * count >= members.count, fits(photo, members) else { continue }
            best = (other, count)
        }
        if free.count >= 2 && free.count > own && free.count > (best?.count ?? 0) { return .centre(free.sorted { rank[$0] < rank[$1] }) }
        return best.map { .join($0.group) }
    }
}
