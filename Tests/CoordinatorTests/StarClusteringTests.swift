@testable import Coordinator
import Testing

@Suite("Clusters that do not chain", .timeLimit(.minutes(1)))
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
}
