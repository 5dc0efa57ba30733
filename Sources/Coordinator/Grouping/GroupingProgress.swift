import Synchronization

/// How far a running grouping is, for `cull status` and the progress line: its step (the
/// candidate search over the photos, then judging the candidates, then the neighbours that
/// may be other shots, then building the groups)
/// and the step's done and total counts. Written by the grouping threads, read by status
/// requests; atomics, no lock.
final class GroupingProgress: Sendable {
    enum Step: Int, Sendable, CaseIterable {
        case starting = 0, searching, judging, neighbours, listing

        /// The step `cull status` named (`name`), or nil for a word it does not know.
        init?(name: String) {
            guard let step = Self.allCases.first(where: { $0.name == name }) else { return nil }
            self = step
        }

        /// The word `cull status` shows.
        var name: String {
            switch self {
            case .starting: "starting"
            case .searching: "searching"
            case .judging: "judging"
            case .neighbours: "neighbours"
            case .listing: "listing"
            }
        }
    }

    struct Snapshot: Sendable, Equatable {
        var step: Step
        var done: Int
        var total: Int
    }

    private let step = Atomic<Int>(0)
    private let done = Atomic<Int>(0)
    private let total = Atomic<Int>(0)

    init() {}

    func begin(_ next: Step, total count: Int) {
        done.store(0, ordering: .relaxed)
        total.store(count, ordering: .relaxed)
        step.store(next.rawValue, ordering: .releasing)
    }

    func advance(by count: Int) { done.add(count, ordering: .relaxed) }

    var snapshot: Snapshot {
        let current = Step(rawValue: step.load(ordering: .acquiring)) ?? .starting
        let total = total.load(ordering: .relaxed)
        return Snapshot(step: current, done: min(done.load(ordering: .relaxed), total), total: total)
    }
}

/// The grouping running now (one at a time: the grouping queue has one thread), by scan.
final class GroupingBoard: Sendable {
    private let current = Mutex<(scanID: Int64, progress: GroupingProgress)?>(nil)

    init() {}

    func start(scanID: Int64) -> GroupingProgress {
        let progress = GroupingProgress()
        current.withLock { $0 = (scanID, progress) }
        return progress
    }

    func end(scanID: Int64) {
        current.withLock { if $0?.scanID == scanID { $0 = nil } }
    }

    func snapshot(scanID: Int64) -> GroupingProgress.Snapshot? {
        current.withLock { $0?.scanID == scanID ? $0?.progress.snapshot : nil }
    }
}
