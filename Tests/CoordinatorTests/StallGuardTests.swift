@testable import Coordinator
import Testing

@Suite("Stall guard", .timeLimit(.minutes(5)))
struct StallGuardTests {
    let start = ContinuousClock.now

    @Test("ticks on time judge; a late tick does not, the next one does")
    func lateTick() {
        var stalls = StallGuard(tick: .milliseconds(200), allowance: .seconds(1), start: start)
        #expect(stalls.skip(at: start + .milliseconds(200)) == nil)
        #expect(stalls.skip(at: start + .milliseconds(1_300)) == nil, "900 ms late is within the allowance")
        #expect(stalls.skip(at: start + .seconds(5)) == .milliseconds(3_500), "3.7 s since the last tick: a stall")
        #expect(stalls.skip(at: start + .milliseconds(5_200)) == nil)
    }

    @Test("a process that stays stalled still judges every other tick")
    func sustainedStall() {
        var stalls = StallGuard(tick: .milliseconds(200), allowance: .seconds(1), start: start)
        let judged = (1...10).map { stalls.skip(at: start + .seconds(2 * $0)) == nil }
        #expect(judged == [false, true, false, true, false, true, false, true, false, true])
    }
}
