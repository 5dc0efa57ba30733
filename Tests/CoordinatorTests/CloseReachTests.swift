@testable import Coordinator
import Analysis
import Foundation
import Testing

/// A pair the judge left without a verdict although its best pairing came close
/// (`PairJudge.cameClose`), while a large library's probes left out the straightened frame
/// that registration starts from (`Grouper.reachCheck`, `close`): registered from that frame,
/// it is near, as a small library's search makes it. Decks straightened by 3°
/// (`StraightenedOverFramesTests`), judged on their thumbnails: their whole frames come within
/// 1.35 times their limit and confirm nothing; the straightened frame registers the copy, which
/// has fewer pixels (`PairJudge.copyIsSmaller`).
@Suite("Close pairs the probes left short", .timeLimit(.minutes(5)))
struct CloseReachTests {
    typealias Straightened = StraightenedOverFramesTests

    /// The deck of `seed` and its copy turned by 3° and cropped, as judged from their
    /// thumbnails, and the straightened-frame pairing within reach of them, if any.
    static func pair(seed: UInt64, changed: Bool = false) throws -> (GroupingPhoto, GroupingPhoto, Grouper.Pairing?) {
        let deck = Straightened.Deck(seed: seed)
        let original = Straightened.thumbnailOnly(try GroupingPhoto.analysed(1, "/shoot/deck.jpg", Straightened.render(deck)))
        let copy = Straightened.thumbnailOnly(try GroupingPhoto.analysed(2, "/exports/deck.jpg",
                                                                         Straightened.straightened(deck, degrees: 3, changed: changed)))
        let starts = Straightened.pairings(original, copy).filter { ($0.slotA == 0 || $0.slotB == 0) && PairJudge.throughStraightened($0) }
        return (original, copy, starts.first)
    }

    @Test("a close pair whose straightened frame search left out is near once registered from it; another shot is not")
    func registeredFromTheStartLeftOut() throws {
        let (original, copy, pairedStart) = try Self.pair(seed: 1)
        let start = try #require(pairedStart, "no straightened frame within reach")
        let frames = Grouper.Pairing(slotA: 0, slotB: 0)
        // The premise: on the whole frames alone no verdict, and close.
        var cache = LayoutCellCache(capacity: 0), best: PairJudge.BestPairing?
        try #require(PairJudge().relation(original, copy, pairings: [frames], rows: (0, 1), cache: &cache, best: &best) == nil)
        let closest = try #require(best)
        try #require(PairJudge.cameClose(closest), "best pairing at \(closest.difference / closest.limit) of its limit")
        let close = Grouper.RecheckedPair(key: 1, pairings: [frames], registrationLimit: PairJudge().registrationLimit(closest))

        let checked = try Grouper().reachCheck([], close: [close], [original, copy], [0, 1], layouts: nil, features: nil, shouldStop: { false })
        #expect(checked.near == [1] && checked.similar.isEmpty && checked.apart.isEmpty, "\(checked)")
        // Not looked for in a photo of fewer pixels (the same frame, its file said to be half
        // the size: the straightened one cannot have been cut from it).
        var smaller = original
        (smaller.width, smaller.height) = (original.width / 2, original.height / 2)
        let unregistered = try Grouper().reachCheck([], close: [close], [smaller, copy], [0, 1], layouts: nil, features: nil,
                                                    shouldStop: { false })
        #expect(unregistered.near.isEmpty, "\(unregistered)")
        // Judged on that frame already: nothing left out, nothing registered again.
        var judged = close
        judged.pairings.append(start)
        let unasked = try Grouper().reachCheck([], close: [judged], [original, copy], [0, 1], layouts: nil, features: nil, shouldStop: { false })
        #expect(unasked.near.isEmpty)

        // Another shot (a part of the deck lit 1.5×) keeps its change where it registers.
        let (_, other, _) = try Self.pair(seed: 1, changed: true)
        var otherCache = LayoutCellCache(capacity: 0), otherBest: PairJudge.BestPairing?
        try #require(PairJudge().relation(original, other, pairings: [frames], rows: (0, 1), cache: &otherCache, best: &otherBest) != .near)
        let otherClose = Grouper.RecheckedPair(key: 1, pairings: [frames],
                                           registrationLimit: PairJudge().registrationLimit(try #require(otherBest)))
        let otherChecked = try Grouper().reachCheck([], close: [otherClose], [original, other], [0, 1], layouts: nil, features: nil,
                                                    shouldStop: { false })
        #expect(otherChecked.near.isEmpty, "\(otherChecked)")
    }

    @Test("grouped in a large library, in different folders, the probes returning only the whole frames: near")
    func groupedThroughTheCloseCheck() throws {
        var (original, copy, pairedStart) = try Self.pair(seed: 1)
        let start = try #require(pairedStart, "no straightened frame within reach")
        // One hash for both frames (the probes return them), the straightened frame 6 bits off
        // it, two bits in each piece of a 3-piece table (bits 0–21, 22–42, 43–63): within the
        // crop radius, met by no probe. Every other hash far from every other (masks 32 bits
        // apart), so that those two are the pairings within reach.
        original.windowPHashes = original.windowPHashes.map { $0 ^ 0x5555_5555_5555_5555 }
        copy.windowPHashes = copy.windowPHashes.map { $0 ^ 0x3333_3333_3333_3333 }
        copy.pHash = original.pHash
        let missed = original.pHash ^ (0b11 | 0b11 << 22 | 0b11 << 43)
        if start.slotB == 0 { original.windowPHashes[start.slotA - 1] = missed } else { copy.windowPHashes[start.slotB - 1] = missed }
        original.mirrorPHash = nil
        copy.mirrorPHash = nil
        original.contentBox = nil
        copy.contentBox = nil
        let grouper = ProbedNeighboursTests.largeLibrary, plan = grouper.planWithThreshold, frames = Grouper.Pairing(slotA: 0, slotB: 0)
        try #require(Set(plan.pairingsWithinReach(original, copy).map { [$0.slotA, $0.slotB] }) == [[0, 0], [start.slotA, start.slotB]])
        try #require(plan.returns(frames, original, copy, pieces: 3) && !plan.returns(start, original, copy, pieces: 3))
        try #require(SimilarNeighbours().pairs([original, copy], representatives: [0, 1]).isEmpty, "the premise: not neighbours")

        let groups = try grouper.groups(of: [original, copy], shouldStop: { false })
        #expect(groups.map(\.kind) == [.near], "\(groups)")
    }
}
