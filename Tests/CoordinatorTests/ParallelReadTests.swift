@testable import Coordinator
import Synchronization
import Testing

/// `Grouper.parallelRead`: a batch's reads split over grouping's threads give what one read
/// gives, and a read that fails fails the whole.
@Suite("Reads split over grouping's threads", .timeLimit(.minutes(5)))
struct ParallelReadTests {
    struct ReadFailed: Error {}

    let ids = (0..<20_000).map { Int64($0 * 3 + 1) }

    @Test("every id read once, in parts, and merged as one read would give them")
    func merged() throws {
        let parts = Mutex<[Int]>([])
        var grouper = Grouper()
        grouper.threads = 2
        let read = try grouper.parallelRead(ids) { part in
            parts.withLock { $0.append(part.count) }
            // A photo without a layout is left out of the answer, as the store does.
            return Dictionary(uniqueKeysWithValues: part.filter { $0 % 5 != 0 }.map { ($0, $0 * 2) })
        }
        #expect(read == Dictionary(uniqueKeysWithValues: ids.filter { $0 % 5 != 0 }.map { ($0, $0 * 2) }))
        let sizes = parts.withLock { $0 }
        #expect(sizes.count > 1, "read in one part: \(sizes)")
        #expect(sizes.reduce(0, +) == ids.count)
    }

    @Test("a part that fails fails the read")
    func failure() {
        var grouper = Grouper()
        grouper.threads = 2
        #expect(throws: ReadFailed.self) {
            _ = try grouper.parallelRead(ids) { part -> [Int64: Int64] in
                if part.contains(30_001) { throw ReadFailed() }
                return Dictionary(uniqueKeysWithValues: part.map { ($0, $0) })
            }
        }
    }

    @Test("a read told to stop throws rather than hand back part of the batch")
    func stopped() {
        let parts = Atomic<Int>(0)
        var grouper = Grouper()
        grouper.threads = 2
        #expect(throws: CancellationError.self) {
            _ = try grouper.parallelRead(ids, shouldStop: { parts.load(ordering: .relaxed) >= 2 }) { part in
                parts.add(1, ordering: .relaxed)
                return Dictionary(uniqueKeysWithValues: part.map { ($0, $0) })
            }
        }
        // Parts of 2,500 ids: 8 in all, and no part begun once two were done but the ones
        // each thread had already taken.
        #expect(parts.load(ordering: .relaxed) < 8)
    }

    @Test("one thread, or few ids, is one read")
    func oneRead() throws {
        let calls = Atomic<Int>(0)
        var grouper = Grouper()
        grouper.threads = 1
        _ = try grouper.parallelRead(ids) { part in
            calls.add(1, ordering: .relaxed)
            return Dictionary(uniqueKeysWithValues: part.map { ($0, $0) })
        }
        grouper.threads = 2
        _ = try grouper.parallelRead(Array(ids.prefix(100))) { part in
            calls.add(1, ordering: .relaxed)
            return Dictionary(uniqueKeysWithValues: part.map { ($0, $0) })
        }
        #expect(calls.load(ordering: .relaxed) == 2)
    }
}
