@testable import Coordinator
import Testing

@Suite("Colour verdicts a family outvotes", .timeLimit(.minutes(5)))
struct OutvotedDistinctTests {
    /// Every pair among `members` confirmed, but those in `except`.
    func family(_ members: [Int], except: [(Int, Int)] = []) -> [(Int, Int)] {
        let left = Set(except.map { Set([$0.0, $0.1]) })
        return members.flatMap { a in members.filter { $0 > a }.map { (a, $0) } }.filter { !left.contains(Set([$0.0, $0.1])) }
    }

    @Test("two copies the colours call different, each confirmed with the family's other five: one group of seven")
    func familyOutvotes() {
        // 0 the original, 1–6 copies, all confirmed with each other but 5 and 6 (an equalised
        // and a bordered copy the colour checks failed). The centre order puts a copy first.
        let pairs = family(Array(0...6), except: [(5, 6)])
        let order = [1, 0, 2, 3, 4, 5, 6]
        let groups = StarClustering.clusters(count: 7, pairs: pairs, order: order, distinct: [(5, 6)])
        #expect(groups.map(Set.init) == [Set(0...6)], "\(groups)")
        // The premise: kept apart, the five confirmed with both are bridges, the centre is one of
        // the two, and the family does not end in one group.
        let apart = StarClustering.clusters(count: 7, pairs: pairs, order: order, apart: [(5, 6)])
        #expect(apart.map(Set.init) != [Set(0...6)], "\(apart)")
        #expect(!apart.contains { $0.contains(5) && $0.contains(6) })
    }

    @Test("an other shot shown to be one is never outvoted, however many copies look like both")
    func otherShotsStand() {
        // 6 a frame zoomed at the photo's pixel size: confirmed with the photo's five copies,
        // shown to be another shot of the photo 0.
        let pairs = family(Array(0...5)) + (1...5).map { ($0, 6) }
        let groups = StarClustering.clusters(count: 7, pairs: pairs, order: Array(0...6), apart: [(0, 6)])
        #expect(!groups.contains { $0.contains(0) && $0.contains(6) }, "\(groups)")
    }

    @Test("two palettes of one design stay apart though gray copies look like both")
    func palettesStand() {
        // 0 warm, 1 cold, 2 and 3 their coloured copies (each confirmed different from the
        // other palette), 4, 5, 6 gray copies confirmed with all: the shared partners are three,
        // half of each side's, but every coloured copy contradicts the verdict.
        let pairs = [(0, 2), (1, 3)] + [0, 1, 2, 3, 5, 6].map { ($0, 4) } + [0, 1, 2, 3, 6].map { ($0, 5) } + [0, 1, 2, 3].map { ($0, 6) }
        let distinct = [(0, 1), (0, 3), (1, 2), (2, 3)]
        let groups = StarClustering.clusters(count: 7, pairs: pairs, order: [4, 5, 6, 0, 1, 2, 3], distinct: distinct)
        for (a, b) in distinct { #expect(!groups.contains { $0.contains(a) && $0.contains(b) }, "\(a), \(b) in \(groups)") }
        #expect(groups.count == 2, "\(groups)")
    }

    @Test("two shared partners do not outvote; nor do shared partners that are a minority of one side's")
    func tooFewStand() {
        // 0 with copies 1, 2, 3; 2 and 3 called different, sharing 0 and 1 only.
        let small = StarClustering.clusters(count: 4, pairs: family(Array(0...3), except: [(2, 3)]), order: [0, 1, 2, 3], distinct: [(2, 3)])
        #expect(!small.contains { $0.contains(2) && $0.contains(3) }, "\(small)")
        // 2 and 3 share 0, 1, 4 (three), but 3 has four partners of its own besides (5–8).
        let pairs = family([0, 1, 2, 3, 4], except: [(2, 3)]) + (5...8).map { (3, $0) }
        #expect(!StarClustering.outvoted(2, 3, partners: Self.partners(9, pairs), apartFrom: [:]))
        #expect(StarClustering.outvoted(2, 3, partners: Self.partners(5, family([0, 1, 2, 3, 4], except: [(2, 3)])), apartFrom: [:]))
    }

    static func partners(_ count: Int, _ pairs: [(Int, Int)]) -> [[Int]] {
        var partners = [[Int]](repeating: [], count: count)
        for (a, b) in pairs { partners[a].append(b); partners[b].append(a) }
        return partners
    }
}
