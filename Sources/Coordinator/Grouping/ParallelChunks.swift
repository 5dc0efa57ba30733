import Dispatch
import Synchronization

/// Runs `body` over `0..<count` in chunks on `threads` threads of its own and returns what each
/// thread gathered. Chunks are handed out in order from one atomic counter, so threads that
/// meet cheap rows take more of them (real libraries are lumpy: a bucket of look-alikes costs
/// far more than a row of a distinct photo).
///
/// It blocks the calling thread until every chunk is done, so it is called from a queue of its
/// own (the grouping queue), never from the cooperative pool (rule 1). `shouldStop` is asked
/// between chunks: a stopped run returns early with what it gathered, and the caller throws
/// its result away.
enum ParallelChunks {
    static func run<Partial: Sendable>(
        count: Int, threads: Int, chunk: Int = 512,
        shouldStop: @Sendable () -> Bool = { false },
        progress: @Sendable (Int) -> Void = { _ in },
        initial: @Sendable () -> Partial,
        _ body: @Sendable (Range<Int>, inout Partial) -> Void
    ) -> [Partial] {
        let next = Atomic<Int>(0)
        let threads = max(1, threads)
        let gathered = Mutex<[Partial]>([])
        DispatchQueue.concurrentPerform(iterations: threads) { _ in
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
        return gathered.withLock { $0 }
    }
}
