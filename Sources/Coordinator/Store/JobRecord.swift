import GRDB

/// A row of `jobs`, and the lifecycle it stands for. The store reads one inside a write
/// transaction, asks `JobLifecycle` for the transition, and writes the result back.
struct JobRecord: Codable, Sendable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "jobs"
    static let databaseColumnDecodingStrategy = DatabaseColumnDecodingStrategy.convertFromSnakeCase
    static let databaseColumnEncodingStrategy = DatabaseColumnEncodingStrategy.convertToSnakeCase

    var id: Int64
    var scanId: Int64
    var attempt: Int64
    var dispatches: Int
    var state: JobState
    var workerId: String?
    var photoCount: Int
    var fullDecode: Bool

    func lifecycle(generation: Int64) -> JobLifecycle {
        let phase: JobLifecycle.Phase = switch state {
        case .queued: .queued
        case .dispatched: .dispatched(.init(attempt: attempt, workerID: workerId ?? "", deadline: nil))
        case .done: .done
        case .split: .split
        case .failed: .failed
        case .abandoned: .abandoned
        }
        return JobLifecycle(jobID: id, generation: generation, photoCount: photoCount, phase: phase, dispatches: dispatches)
    }

    /// This row with the lifecycle's state written into it.
    mutating func apply(_ lifecycle: JobLifecycle) {
        state = lifecycle.state
        dispatches = lifecycle.dispatches
        if let dispatch = lifecycle.dispatch {
            attempt = dispatch.attempt
            workerId = dispatch.workerID
        } else if lifecycle.state == .queued {
            workerId = nil
        }
    }
}

extension JobState: Codable {}
