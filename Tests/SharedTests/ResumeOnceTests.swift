import Dispatch
import Shared
import Synchronization
import Testing

@Suite("ResumeOnce", .timeLimit(.minutes(2)))
struct ResumeOnceTests {
    @Test("of many racing completions exactly one resumes the continuation")
    func racingCompletions() async throws {
        for round in 0..<200 {
            let before = ResumeOnceStatistics.droppedCompletions.load(ordering: .relaxed)
            let winners = Tally()
            // Any racer may win: an even one returns its index, an odd one throws. (Index 0 runs
            // on the calling thread and usually wins; under load an odd racer sometimes does,
            // and the test once failed in CI by taking that throw for a failure.)
            let outcome: Result<Int, any Error>
            do {
                outcome = .success(try await withCheckedThrowingContinuation { continuation in
                    let once = ResumeOnce(continuation)
                    DispatchQueue.concurrentPerform(iterations: 8) { index in
                        if index % 2 == 0 {
                            if once.resume(returning: index) { winners.enter() }
                        } else {
                            if once.resume(throwing: TimeoutError(operation: "racer \(index)", timeout: .zero)) {
                                winners.enter()
                            }
                        }
                    }
                })
            } catch {
                outcome = .failure(error)
            }
            #expect(winners.current.load(ordering: .relaxed) == 1, "round \(round)")
            switch outcome {
            case .success(let value): #expect(value % 2 == 0, "an even racer returns")
            case .failure(let error): #expect(error is TimeoutError, "an odd racer throws its TimeoutError, not \(error)")
            }
            #expect(ResumeOnceStatistics.droppedCompletions.load(ordering: .relaxed) - before >= 7)
        }
    }

    @Test("after the winner, isResumed holds and late completions report false")
    func lateCompletion() async throws {
        let once = Mutex<ResumeOnce<String>?>(nil)
        let value: String = try await withCheckedThrowingContinuation { continuation in
            let guarded = ResumeOnce<String>(continuation)
            once.withLock { $0 = guarded }
            #expect(guarded.resume(returning: "first"))
        }
        #expect(value == "first")
        let guarded = try #require(once.withLock { $0 })
        #expect(guarded.isResumed)
        #expect(!guarded.resume(returning: "second"))
    }
}
