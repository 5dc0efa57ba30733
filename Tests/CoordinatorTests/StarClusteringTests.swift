@testable import Coordinator
import Testing

@Suite("Clusters that do not chain", .timeLimit(.minutes(5)))
struct StarClusteringTests {
    /// Indexes in keeper order 0, 1, 2, … (the lowest index is the best keeper).
    func clusters(_ count: Int, _ pairs: [(Int, Int)]) -> [[Int]] {
        StarClustering.clusters(count: count, pairs: pairs, order: Array(0..<count))
    }

    @Test("a chain A–B–C is not a group of three: C is not confirmed against the keeper")
    func chain() {
        #expect(clusters(3, [(0, 1), (1, 2)]) == [[0, 1]])
    }

    @Test("copies of one original form one group, the keeper first")
    func star() {
        #expect(clusters(4, [(3, 0), (0, 1), (2, 0)]) == [[0, 1, 2, 3]])
    }

    @Test("an edit of edits joins when it is confirmed with most of the group")
    func quorum() {
        // 0 the original, 1 and 2 its copies, 3 confirmed with both copies but not with 0.
        #expect(clusters(4, [(0, 1), (0, 2), (1, 3), (2, 3)]) == [[0, 1, 2, 3]])
    }

    @Test("a look-alike of one member does not join")
    func lookAlikeOfOneMember() {
        // 0 with copies 1, 2, 3; 4 looks like 1 only.
        #expect(clusters(5, [(0, 1), (0, 2), (0, 3), (1, 4)]) == [[0, 1, 2, 3]])
    }

    @Test("two scenes bridged by one plausible link stay two groups")
    func bridge() {
        // Scene A: 0 with 2, 4; scene B: 1 with 3, 5; a weak link between copies 4 and 5.
        let groups = clusters(6, [(0, 2), (0, 4), (1, 3), (1, 5), (4, 5)])
        #expect(groups == [[0, 2, 4], [1, 3, 5]])
    }

    @Test("the order given decides the centre, whatever the index order")
    func order() {
        let groups = StarClustering.clusters(count: 3, pairs: [(0, 1), (1, 2)], order: [1, 0, 2])
        #expect(groups == [[1, 0, 2]], "the middle of the chain is the best keeper: both are confirmed against it")
    }

    @Test("a crop at the centre: crops confirmed with the original (its anchor) join its group, not one of their own; a look-alike of a crop does not")
    func anchor() {
        // 0 the original; 1 a crop from its middle, confirmed with it and with crops 2, 3, 4,
        // the centre (most partners); 5 a crop confirmed with the original and with crop 6
        // only, which is confirmed with no one else; 7 looks like crop 2 alone.
        let pairs = [(1, 0), (1, 2), (1, 3), (1, 4), (0, 5), (5, 6), (2, 7)]
        let order = [1, 0, 2, 5, 3, 4, 6, 7]
        #expect(StarClustering.clusters(count: 8, pairs: pairs, order: order) == [[1, 0, 2, 3, 4], [5, 6]], "without anchors, two groups")
        func before(_ anchors: [Int]) -> (Int, Int) -> Bool {
            { anchors.firstIndex(of: $0)! < anchors.firstIndex(of: $1)! }
        }
        let anchored = StarClustering.clusters(count: 8, pairs: pairs, order: order, isBetterAnchor: before([0, 5, 1, 2, 3, 4, 6, 7]))
        #expect(anchored == [[1, 0, 2, 3, 4, 5]], "5 joins through the original; 6 and 7 are confirmed with one member each")
        // The centre is the best anchor itself: nothing more joins.
        #expect(StarClustering.clusters(count: 8, pairs: pairs, order: order, isBetterAnchor: before([1, 0, 2, 3, 4, 5, 6, 7])) == [[1, 0, 2, 3, 4], [5, 6]])
    }
}

@Suite("Pairs confirmed different", .timeLimit(.minutes(5)))
struct ApartClusteringTests {
    @Test("two colour variants and their copies: two groups, never one, though gray copies look like both")
    func variantsStayApart() {
        // 0 warm design, 1 cold design (apart), 2 a warm copy, 3 a cold copy, 4 and 5 gray copies
        // of each, which the gray features confirm with all four.
        let pairs = [(0, 2), (1, 3), (0, 4), (1, 4), (2, 4), (3, 4), (0, 5), (1, 5), (2, 5), (3, 5), (4, 5)]
        let apart = [(0, 1), (0, 3), (1, 2), (2, 3)]
        // Centres by partner count: the gray copies first. Without `apart` one group takes all six.
        let order = [4, 5, 0, 1, 2, 3]
        #expect(StarClustering.clusters(count: 6, pairs: pairs, order: order).count == 1)
        // Each gray copy goes with the design it is nearest to (4 warm, 5 cold).
        let distance: (Int, Int) -> Int = { a, b in
            let warm: Set = [0, 2, 4], cold: Set = [1, 3, 5]
            return (warm.contains(a) && warm.contains(b)) || (cold.contains(a) && cold.contains(b)) ? 0 : 6
        }
        let groups = StarClustering.clusters(count: 6, pairs: pairs, order: order, apart: apart, distance: distance)
        #expect(Set(groups.map(Set.init)) == [[0, 2, 4], [1, 3, 5]])
    }

    @Test("a photo confirmed with a group's copies but apart from its centre never joins it")
    func quorumRespectsApart() {
        // 0 with copies 1 and 2; 3 is confirmed with both copies (a quorum) but apart from 0.
        // Without `apart`, 3 joins 0's group by quorum.
        let pairs = [(0, 1), (0, 2), (1, 3), (2, 3)]
        #expect(StarClustering.clusters(count: 4, pairs: pairs, order: [0, 1, 2, 3]) == [[0, 1, 2, 3]])
        let groups = StarClustering.clusters(count: 4, pairs: pairs, order: [0, 1, 2, 3], apart: [(0, 3)])
        #expect(!groups.contains { $0.contains(0) && $0.contains(3) }, "\(groups)")
        // The copies (confirmed with both: bridges) still go somewhere. Neither photo took
        // anyone, so both are free; the first copy becomes a centre and takes the first of
        // them, and the other copy joins it.
        #expect(groups == [[1, 0, 2]], "\(groups)")
    }

    @Test("photos in no pair may be left out of the order: the groups are the same")
    func orderOfPairedPhotosOnly() {
        // Grouping orders only the photos with a partner (at a million photos, sorting every
        // photo was seconds of one thread).
        let pairs = [(0, 2), (0, 4), (1, 3), (1, 5), (4, 5), (6, 7), (7, 8)]
        let everyPhoto = StarClustering.clusters(count: 12, pairs: pairs, order: [7, 0, 1, 9, 2, 3, 10, 4, 5, 6, 8, 11])
        let pairedOnly = StarClustering.clusters(count: 12, pairs: pairs, order: [7, 0, 1, 2, 3, 4, 5, 6, 8])
        #expect(pairedOnly == everyPhoto)
        #expect(pairedOnly == [[7, 6, 8], [0, 2, 4], [1, 3, 5]])
    }

    @Test("an original confirmed with a burst frame and with copies apart from the frame keeps its copies")
    func bridgeKeepsItsCopies() {
        // 0 the original; 1 a burst frame the judge passed as near; 2, 3, 4 edited copies of 0,
        // each apart from the frame (its colours disagree) and paired with 0 alone. 0 is a
        // bridge (confirmed with both sides of an apart pair). The copies, whose only partner it
        // is, take nobody and stay free; 0 then takes them, not the frame.
        let pairs = [(0, 1), (0, 2), (0, 3), (0, 4)]
        let apart = [(1, 2), (1, 3), (1, 4)]
        for order in [[0, 1, 2, 3, 4], [1, 0, 2, 3, 4], [4, 3, 2, 1, 0]] {
            #expect(StarClustering.clusters(count: 5, pairs: pairs, order: order, apart: apart).map(Set.init) == [[0, 2, 3, 4]], "order \(order)")
        }
        // Without the conflicts, one group of all five.
        #expect(StarClustering.clusters(count: 5, pairs: pairs, order: [0, 1, 2, 3, 4]).map(Set.init) == [[0, 1, 2, 3, 4]])
    }

    @Test("an original confirmed with a burst frame and with one copy apart from the frame keeps the closer of the two, whatever their order")
    func bridgeKeepsTheCloser() {
        // 0 the original; 1 a burst frame the judge passed as near, 6 bits from it; 2 a
        // bordered copy, 0 bits from it through its content hash, apart from the frame. The
        // centre order puts the frame first (no added borders); one against one, the copy stays.
        let pairs = [(0, 1), (0, 2)], apart = [(1, 2)]
        let distance: (Int, Int) -> Int = { a, b in Set([a, b]) == [0, 1] ? 6 : Set([a, b]) == [0, 2] ? 0 : 20 }
        for order in [[0, 1, 2], [1, 0, 2], [2, 1, 0]] {
            #expect(StarClustering.clusters(count: 3, pairs: pairs, order: order, apart: apart, distance: distance) == [[0, 2]], "order \(order)")
        }
        // The frame the closer: it stays, and the copy is left.
        let frameCloser: (Int, Int) -> Int = { a, b in Set([a, b]) == [0, 1] ? 0 : Set([a, b]) == [0, 2] ? 6 : 20 }
        #expect(StarClustering.clusters(count: 3, pairs: pairs, order: [0, 2, 1], apart: apart, distance: frameCloser) == [[0, 1]])
    }
}

@Suite("Members moved to the group they are most confirmed with", .timeLimit(.minutes(5)))
struct ClusteringMovesTests {
    // 0 a photo with copies 1, 2, 3; 4 another photo that passes for 0 (another export of one
    // picture), with copies 5 and 6 confirmed with it but not with 0. 0 has more partners, so
    // it becomes a centre first and takes 4.

    @Test("a photo taken by a look-alike goes to the group of its own copies")
    func backToItsCopies() {
        let pairs = [(0, 1), (0, 2), (0, 3), (0, 4), (4, 5), (4, 6), (5, 6)]
        let groups = StarClustering.clusters(count: 7, pairs: pairs, order: [0, 4, 1, 2, 3, 5, 6])
        // Without the move: [[0, 4, 1, 2, 3], [5, 6]], the copies without their photo.
        #expect(groups == [[0, 1, 2, 3], [5, 6, 4]], "\(groups)")
    }

    @Test("copies in no group: the photo becomes their centre")
    func centreOfItsFreeCopies() {
        // 5 and 6 are not confirmed with each other: each waits for 4, which 0 took.
        let pairs = [(0, 1), (0, 2), (0, 3), (0, 4), (4, 5), (4, 6)]
        let groups = StarClustering.clusters(count: 7, pairs: pairs, order: [0, 4, 1, 2, 3, 5, 6])
        #expect(groups == [[0, 1, 2, 3], [4, 5, 6]], "\(groups)")
    }

    @Test("of as many partners, the group the photo is confirmed with more completely wins; a full tie stays")
    func ties() {
        // 4 is confirmed with 0 and 1, two of the four others in its group, and with both of
        // its copies 5 and 6: it moves.
        let halfway = [(0, 1), (0, 2), (0, 3), (0, 4), (1, 4), (4, 5), (4, 6), (5, 6)]
        let moved = StarClustering.clusters(count: 7, pairs: halfway, order: [0, 4, 1, 2, 3, 5, 6])
        #expect(moved == [[0, 1, 2, 3], [5, 6, 4]], "\(moved)")
        // 4 is confirmed with both others of its group (0 and 1) and with both of its copies: it stays.
        let even = [(0, 1), (0, 4), (1, 4), (4, 5), (4, 6), (5, 6)]
        let stays = StarClustering.clusters(count: 7, pairs: even, order: [0, 4, 1, 5, 6])
        #expect(stays == [[0, 4, 1], [5, 6]], "\(stays)")
    }

    @Test("a member a quorum joiner counted on stays, and a group never shrinks to one")
    func keepsWhatItsGroupNeeds() {
        // 4 has three copies of its own (5, 6, 8), two partners in 0's group: 0 and 7, which
        // joined by quorum through 1, 2 and 4. 4 stays: 7's quorum counted it.
        let copies = [(0, 1), (0, 2), (0, 3), (0, 4), (4, 5), (4, 6), (4, 8), (5, 6), (5, 8), (6, 8)]
        let order = [0, 4, 1, 2, 3, 5, 6, 8, 7]
        #expect(StarClustering.clusters(count: 9, pairs: copies, order: order) == [[0, 1, 2, 3], [5, 6, 8, 4]])
        let groups = StarClustering.clusters(count: 9, pairs: copies + [(7, 1), (7, 2), (7, 4)], order: order)
        #expect(groups == [[0, 4, 1, 2, 3, 7], [5, 6, 8]], "\(groups)")
        // 0 and 4 alone in a group: 4 stays with 0 (0 would be left alone), its copies on their own.
        let alone = StarClustering.clusters(count: 7, pairs: [(0, 4), (4, 5), (4, 6), (5, 6)], order: [0, 4, 5, 6])
        #expect(alone == [[0, 4], [5, 6]], "\(alone)")
    }

    @Test("a photo that moved in by quorum keeps the members it counted")
    func movedByQuorumKeepsItsQuorum() {
        // 1 is in 0's group, confirmed with 0 alone; it moves into 5's group by quorum (6 and 7,
        // not 5). 6 stands better with 8's group (8, 9, 10) but stays: 1 counted it, and would be
        // left confirmed with one of [5, 7].
        let pairs = [(0, 1), (0, 2), (0, 3), (0, 4), (5, 6), (5, 7), (1, 6), (1, 7),
                     (8, 9), (8, 10), (8, 11), (6, 8), (6, 9), (6, 10)]
        let groups = StarClustering.clusters(count: 12, pairs: pairs, order: [0, 5, 8, 1, 2, 3, 4, 6, 7, 9, 10, 11])
        #expect(groups == [[0, 2, 3, 4], [5, 6, 7, 1], [8, 9, 10, 11]], "\(groups)")
    }

    @Test("a photo apart from a member of the other group stays")
    func apartStays() {
        let pairs = [(0, 1), (0, 2), (0, 3), (0, 4), (4, 5), (4, 6), (5, 6)]
        let groups = StarClustering.clusters(count: 7, pairs: pairs, order: [0, 4, 1, 2, 3, 5, 6], apart: [(4, 6)])
        #expect(groups.first?.contains(4) == true, "\(groups)")
    }
}
