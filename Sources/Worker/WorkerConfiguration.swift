import Shared
/// Everything a worker daemon is told on its command line.
struct WorkerConfiguration: Sendable {
    var endpoint: String
    var workerID: String
    var host: String
    /// Jobs held at once: the credit offered to the coordinator.
    var capacity: Int
    var fetchThreads: Int
    var computeThreads: Int
    var heartbeatInterval: Duration
    var heartbeatLiveness: Int
    /// Stuck (timed-out, still blocked) fetches at which the worker recycles itself.
    var maxAbandonedFetches: Int
    /// `cull run`'s workers: exit when this process is no longer our parent (it died), so no
    /// worker outlives the run that started it.
    var parentProcess: Int32?
    /// Which files it opens, and the limits it caps every job's at.
    var readPolicy = ReadPolicy()
    /// CURVE: this worker's key pair and the coordinator's public key (nil: plain TCP).
    var curve: WorkerCurve?
}

/// The keys a worker authenticates and encrypts with (`--key`, `--server-key`).
struct WorkerCurve: Sendable {
    var keyPair: CurveKeyPair
    var serverKey: CurveKey
}

/// Exit statuses a supervisor can act on (documented in deploy/ and `cull-worker --help`).
enum WorkerExitStatus: Int32, Sendable {
    case normal = 0
    /// Too many fetches are stuck in the kernel: restart me (EX_TEMPFAIL).
    case recycle = 75
    /// The coordinator speaks another protocol version: restarting will not help (EX_CONFIG).
    case incompatible = 78
    /// The endpoint or options are wrong (EX_USAGE).
    case usage = 64
}
