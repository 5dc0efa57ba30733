import Analysis

/// How a coordinator schedules work; every wait has a deadline here (rule 3).
struct CoordinatorConfiguration: Sendable {
    var workEndpoint: String
    var controlEndpoint: String?
    /// Photos per job.
    var jobSize = 16
    /// Per photo, enforced by the worker.
    var fetchTimeout: Duration = .seconds(30)
    /// Per job, enforced here; past it the job is requeued with a new attempt token.
    var jobDeadline: Duration = .seconds(300)
    /// Dispatches of one job before it is split photo by photo; a single photo that fails this
    /// often is recorded failed.
    var maxDispatches = 3
    /// How often job deadlines and worker silence are judged (`DeadlineMonitor`).
    var deadlineTick: Duration = .milliseconds(200)
    var heartbeatInterval: Duration = .seconds(1)
    var heartbeatLiveness = 5
    var analysis = AnalysisOptions()
    /// Files per walk step (one SQLite transaction each), and how long one step may take (a
    /// hung mount fails the scan). 2,048 rather than 512: a rescan of 220,000 unchanged files
    /// took 1.79–2.00 s against 2.01–2.41 s, alternating (fewer commits, each page of photos
    /// written once per batch).
    var walkBatch = 2048
    var walkStepTimeout: Duration = .seconds(120)
    /// Grouping a finished scan; past it the grouping is stopped and the scan fails with a
    /// message that says what to do (`--grouping-timeout`).
    var groupingTimeout: Duration = .seconds(3600)
    /// The folders scans may start in (`cull serve --library-root`); empty: any folder. A scan
    /// root is checked inside one of them after both are resolved (links included).
    var libraryRoots: [String] = []
    /// How often SQLite and the scheduler are reconciled (lost jobs, unchecked completions).
    var reconcileInterval: Duration = .seconds(5)
    /// Queued jobs above which a walk pauses (memory stays bounded on huge libraries).
    var maxQueuedJobs = 2048
    /// Accepted results waiting for SQLite; past it the work channel stops reading (backpressure).
    var resultBufferCapacity = 4096
    /// How long a graceful shutdown may take (storing buffered results, goodbyes) before the
    /// rest is cancelled.
    var gracefulShutdownLimit: Duration = .seconds(20)
    /// Near-duplicate threshold (pHash Hamming distance).
    var nearThreshold = 10
    /// How keepers are chosen when a scan request does not say (`cull serve --prefer`).
    var keeperPolicy = KeeperPolicy()
    /// Capture times at most this far apart make look-alike shots similar (`PairJudge`).
    var similarWindow: Duration = .seconds(3)
    /// Tests only: runs on the grouping thread before each grouping, with its stop signal (a
    /// test makes a grouping outlast its timeout with it).
    var beforeGrouping: @Sendable (StopFlag) -> Void = { _ in }
}

extension CoordinatorConfiguration {
    /// What grouping's result depends on besides its input: the grouper's code
    /// (`Grouper.rulesVersion`) and settings. Part of the grouping digest.
    var groupingRules: String {
        let grouper = self.grouper
        return "grouper \(Grouper.rulesVersion); threshold \(grouper.threshold); similar window \(grouper.judge.similarWindow); "
            + "judge \(grouper.judge.frameConfirmation) \(grouper.judge.windowConfirmation) \(grouper.judge.similarConfirmation); plan \(grouper.plan)"
    }

    /// `groupingRules` and the scan's keeper policy: the keepers are part of the groups kept.
    func groupingRules(for scan: ScanRecord) -> String {
        groupingRules + "; keepers \(scan.keeperPolicy.rulesText) reference \(scan.keeperPolicy.referenceFolders)"
    }

    /// The grouper these settings ask for, choosing keepers by `keeperPolicy`.
    func grouper(keeperPolicy: KeeperPolicy) -> Grouper {
        var grouper = self.grouper
        grouper.keeperPolicy = keeperPolicy
        return grouper
    }

    /// The grouper these settings ask for.
    var grouper: Grouper {
        var grouper = Grouper(threshold: nearThreshold)
        let window = similarWindow.components
        grouper.judge.similarWindow = Double(window.seconds) + Double(window.attoseconds) / 1e18
        return grouper
    }
}
