import Analysis
import Foundation
import Shared

/// What the services do to jobs: send them, take them back, and finish scans.
extension Coordinator {
    /// Sends queued jobs to workers with free credit. Each dispatch is recorded in SQLite
    /// (with its new attempt token) before its JOB leaves.
    func dispatch() async {
        while true {
            let assignments = scheduler.assign(limit: 64)
            guard !assignments.isEmpty else { return }
            let tokens: [Int64: Int64]
            do {
                tokens = try await store.recordDispatches(assignments.map { ($0.spec.jobID, $0.workerID) })
            } catch {
                logger.error("could not record dispatches; retrying shortly", metadata: ["error": "\(describe(error))"])
                for assignment in assignments { scheduler.abandonAssignment(jobID: assignment.spec.jobID) }
                scheduler.enqueue(assignments.map(\.spec), atFront: true)
                return
            }
            var lost: [CullStore.TakeBackRequest] = []
            for assignment in assignments {
                guard let attempt = tokens[assignment.spec.jobID] else {
                    scheduler.abandonAssignment(jobID: assignment.spec.jobID)  // its scan ended
                    continue
                }
                let deadline = clock.now + configuration.jobDeadline
                guard let routingID = scheduler.dispatched(jobID: assignment.spec.jobID, attempt: attempt, deadline: deadline) else {
                    // The worker left between assignment and recording: take the job back.
                    lost.append(.init(jobID: assignment.spec.jobID, attempt: attempt, runsAlone: assignment.spec.runsAlone))
                    continue
                }
                var job = Cull_V1_Job()
                job.jobID = assignment.spec.jobID
                job.generation = assignment.spec.generation
                job.attempt = attempt
                job.fetchTimeoutMs = UInt32(clamping: configuration.fetchTimeout.wholeMilliseconds)
                job.deadlineMs = UInt32(clamping: configuration.jobDeadline.wholeMilliseconds)
                job.options = Cull_V1_AnalysisOptions(configuration.analysis)
                if assignment.spec.fullDecode { job.options.usePreviews = false }  // verification: main images only
                job.photos = assignment.spec.photos
                work.send([routingID] + WireCodec.encode(.job(job)))
            }
            if !lost.isEmpty { await takeBack(lost, reason: .workerLost, why: "its worker left") }
        }
    }

    /// Takes jobs back from the workers holding them, in one transaction: each is queued
    /// again, split photo by photo, or (a lone photo out of dispatches) recorded failed.
    /// `suspect`: the worker died (went silent, or came back under the same id), so a job it
    /// held may hold the photo that killed it: from now on it (and its pieces) run alone, and
    /// the blame for another death is exact. A worker that said goodbye, a dispatch that was
    /// lost or a result that could not be stored makes no suspect.
    func takeBack(_ requests: [CullStore.TakeBackRequest], reason: Cull_V1_FailureKind, why: String, suspect: Bool = false) async {
        guard !requests.isEmpty else { return }
        scheduler.count { $0.jobsRequeued += UInt64(requests.count) }
        do {
            let outcome = try await store.takeBack(requests, kind: reason, why: why, suspect: suspect,
                                                   maxDispatches: configuration.maxDispatches)
            for jobID in outcome.split {
                logger.warning("job failed \(configuration.maxDispatches) times; splitting it photo by photo", metadata: ["job": "\(jobID)"])
            }
            scheduler.enqueue(outcome.queue, atFront: true)
            checkCompletion(outcome.scansToCheck)
        } catch {
            logger.error("could not take jobs back; the reconciliation sweep will", metadata: ["error": "\(describe(error))"])
        }
        dispatchBell.ring()
    }

    /// Asks the `Finalizer` to group each of these scans if every photo of it has an outcome.
    /// Returns at once: grouping never runs inside the service that asks (storing results,
    /// taking jobs back and the sweep go on meanwhile).
    func checkCompletion(_ scanIDs: Set<Int64>) {
        completionChecks.request(scanIDs)
    }

    func finalizeIfComplete(_ scanID: Int64) async {
        do {
            guard try await store.isComplete(scanID: scanID), let scan = try await store.scan(id: scanID) else { return }
            // Nothing changed since an earlier scan (same analyses, same rules): keep its groups.
            let digest = try await store.groupingDigest(scan: scan, rules: configuration.groupingRules(for: scan))
            if let earlier = try await store.doneScan(library: scan.libraryID, digest: digest), earlier != scan.id {
                if let kept = try await store.finalize(scan: scan, reusingGroupsOf: earlier, digest: digest) {
                    logger.info("scan done; nothing changed since an earlier scan, whose groups are kept",
                                metadata: ["scan": "\(scanID)", "earlier": "\(earlier)", "groups": "\(kept)"])
                } else {
                    logger.info("scan ended before it could finalize; its groups were not stored", metadata: ["scan": "\(scanID)"])
                }
                return
            }
            // Rows stored before this version wait for their turned frame's and centre square's
            // hashes (once): said before it starts, since a large library's takes a while.
            if try await store.derivedHashesWaiting() {
                logger.info("working out the turned frames' and centre squares' hashes of photos stored by an earlier version, once before grouping (about a minute for 800,000 photos)")
            }
            let derived = try await store.fillDerivedHashes()
            if derived > 0 {
                logger.info("worked out the turned frames' and centre squares' hashes of photos stored by an earlier version",
                            metadata: ["photos": "\(derived)"])
            }
            let (photos, features) = try await store.groupingInput(scan: scan)
            guard let groups = try await group(photos, features: features, scan: scan) else { return }
            // Nothing is a near-duplicate on an embedded preview's word alone: such members are
            // analysed again from their main image, and the scan groups again when they are back.
            let unverified = Self.membersFromPreviews(groups, photos)
            if !unverified.isEmpty {
                let jobs = try await store.requestVerification(scan: scan, photos: unverified, jobSize: configuration.jobSize)
                if !jobs.isEmpty {
                    logger.info("verifying near-duplicates analysed from embedded previews: their main images are analysed before grouping",
                                metadata: ["scan": "\(scanID)", "photos": "\(jobs.reduce(0) { $0 + $1.photos.count })"])
                    scheduler.enqueue(jobs)
                    dispatchBell.ring()
                    return
                }
            }
            if try await store.finalize(scan: scan, groups: groups, digest: digest) {
                logger.info("scan done", metadata: ["scan": "\(scanID)", "photos": "\(scan.total)", "failed": "\(scan.failed)", "groups": "\(groups.count)"])
            } else {
                logger.info("scan ended before it could finalize; its groups were not stored", metadata: ["scan": "\(scanID)"])
            }
        } catch is CancellationError {
            return  // shutting down: the scan is grouped after the restart
        } catch is ScanNotCurrent {
            logger.info("scan ended before it could finalize; its groups were not stored", metadata: ["scan": "\(scanID)"])
        } catch {
            // The reconciliation sweep asks again in a few seconds.
            logger.error("could not finalize scan; will retry", metadata: ["scan": "\(scanID)", "error": "\(describe(error))"])
        }
    }
}

extension Coordinator {
    /// Groups a scan's photos on the grouping queue, one grouping at a time, within the
    /// grouping timeout. Past it the grouping is told to stop (it ends within a chunk of rows)
    /// and the scan fails with what to do; nil then, or if an earlier grouping that timed out
    /// is still winding down (the sweep asks again).
    func group(_ photos: [GroupingPhoto], features: ScanFeatures, scan: ScanRecord) async throws -> [PhotoGroup]? {
        guard groupingsRunning.current == 0 else {
            logger.notice("a grouping is still winding down; this scan is grouped after it", metadata: ["scan": "\(scan.id)"])
            return nil
        }
        let grouper = configuration.grouper(keeperPolicy: scan.keeperPolicy)
        let beforeGrouping = configuration.beforeGrouping
        let stop = StopFlag()
        let running = groupingsRunning
        let progress = groupingBoard.start(scanID: scan.id)
        defer {
            stop.set()  // a grouping whose caller stopped waiting (timeout, shutdown) ends too
            groupingBoard.end(scanID: scan.id)
        }
        do {
            let started = ContinuousClock.now
            let groups = try await groupingQueue.run(timeout: configuration.groupingTimeout, operation: "grouping scan \(scan.id)") {
                running.increment()
                defer { running.decrement() }
                beforeGrouping(stop)
                return try grouper.groups(of: photos, features: features, progress: progress, shouldStop: { stop.isSet })
            }
            metrics.groupingFinished(after: ContinuousClock.now - started)
            return groups
        } catch let timeout as TimeoutError {
            stop.set()
            let message = "grouping \(photos.count) photos did not finish within \(timeout.timeout.millisecondsDescription) "
                + "(--grouping-timeout); the analysed photos are kept, so scanning again with a longer --grouping-timeout only groups again"
            logger.error("grouping timed out; the scan fails", metadata: ["scan": "\(scan.id)", "photos": "\(photos.count)"])
            try await store.failScan(id: scan.id, error: message)
            return nil
        }
    }

    /// Members of near groups whose features may come from an embedded preview.
    static func membersFromPreviews(_ groups: [PhotoGroup], _ photos: [GroupingPhoto]) -> [(id: Int64, path: String)] {
        let fromPreview = Dictionary(uniqueKeysWithValues: photos.filter(\.fromPreview).map { ($0.id, $0.path) })
        guard !fromPreview.isEmpty else { return [] }
        return groups.filter { $0.kind == .near }.flatMap(\.members).compactMap { member in
            fromPreview[member.photoID].map { (member.photoID, $0) }
        }
    }
}

extension Cull_V1_AnalysisOptions {
    init(_ options: AnalysisOptions) {
        self.init()
        minShortSide = UInt32(options.minShortSide)
        maxPixels = UInt64(options.maxPixels)
        maxFileBytes = UInt64(options.maxFileBytes)
        usePreviews = options.usePreviews
    }
}
