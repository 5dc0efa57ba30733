import Foundation
import Synchronization

/// Runs `body` over `0..<count` in chunks on `threads` threads and returns what each thread
/// gathered. Chunks are handed out in order from one atomic counter, so threads that meet
/// cheap rows take more of them (real libraries are lumpy: a bucket of look-alikes costs far
/// more than a row of a distinct photo).
///
/// The threads are its own: the calling thread and `threads - 1` threads started for the run.
/// Not libdispatch's `concurrentPerform`: on Linux the global dispatch pool is where Swift's
/// cooperative threads come from too, and a grouping that keeps both cores busy for a minute
/// there would starve every async task of the coordinator (rule 1). It blocks the calling
/// thread until every chunk is done, so it is called from a queue of its own (the grouping
/// queue), never from the cooperative pool. `shouldStop` is asked between chunks: a stopped run
/// returns early with what it gathered, and the caller throws its result away.
enum ParallelChunks {
    static func run<Partial: Sendable>(
        count: Int, threads: Int, chunk: Int = 512,
        shouldStop: @escaping @Sendable () -> Bool = { false },
        progress: @escaping @Sendable (Int) -> Void = { _ in },
        initial: @escaping @Sendable () -> Partial,
        _ body: @escaping @Sendable (Range<Int>, inout Partial) -> Void
    ) -> [Partial] {
        let next = Atomic<Int>(0)
        let gathered = Mutex<[Partial]>([])
        let work: @Sendable () -> Void = {
            var partial = initial()
            while !shouldStop() {
                let start = next.add(chunk, ordering: .relaxed).oldValue
                guard start < count else { break }
                let end = min(count, start + chunk)
                body(start..<end, &partial)
                progress(end - start)
            }
            gathered.withLock { [partial] in $0.append(partial) }
        }
        let helpers = max(1, threads) - 1
        let finished = HelperCountdown(helpers)
        for index in 0..<helpers {
            let thread = Thread {
                work()
                finished.arrive()
            }
            thread.name = "cull.grouping.\(index + 1)"
            thread.start()
        }
        work()
        finished.wait()
        return gathered.withLock { $0 }
    }
}

/// Waits for the helper threads of one run. The wait blocks the grouping thread that called
/// `ParallelChunks.run` (a `BlockingQueue` thread, never a cooperative one: rule 1); helpers
/// only signal. Its deadline (rule 3) is the caller's: `Coordinator.group` runs the grouping
/// under `--grouping-timeout`, and past it sets the stop flag that every helper asks between
/// chunks, so each ends within one chunk of rows and this wait ends with them.
private final class HelperCountdown: @unchecked Sendable {
    // @unchecked: `left` is read and written only with `condition` locked.
    private let condition = NSCondition()
    private var left: Int

    init(_ helpers: Int) { left = helpers }

    func arrive() {
        condition.lock()
        left -= 1
        condition.broadcast()
        condition.unlock()
    }

    func wait() {
        condition.lock()
        while left > 0 { condition.wait() }
        condition.unlock()
    }
}
