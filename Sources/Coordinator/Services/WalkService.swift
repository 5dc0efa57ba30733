import Foundation
import ServiceLifecycle
import Shared

/// Walks the libraries of started scans, a batch at a time: each batch is stored and its jobs
/// queued while the walk goes on. A walk stops quietly when its scan stops being current, and
/// where it is on graceful shutdown (the next start walks again and skips what is stored).
struct WalkService: Service {
    let coordinator: Coordinator
    init(_ coordinator: Coordinator) { self.coordinator = coordinator }

    func run() async {
        let coordinator = self.coordinator
        await withDiscardingTaskGroup { group in
            for await scan in coordinator.scanStarts.cancelOnGracefulShutdown() {
                group.addTask { await cancelWhenGracefulShutdown { await walk(scan) } }
            }
            group.cancelAll()
        }
    }

    private func walk(_ scan: ScanRecord) async {
        guard coordinator.activeWalks.withLock({ $0.insert(scan.id).inserted }) else { return }
        defer { _ = coordinator.activeWalks.withLock { $0.remove(scan.id) } }
        let configuration = coordinator.configuration
        let store = coordinator.store
        let walker = LibraryWalker(root: scan.root, filter: scan.walkFilter)
        @Sendable func read() async throws -> [WalkedFile] {
            // Backpressure: the walk waits while plenty of work is queued, so memory stays
            // bounded however large the library.
            while coordinator.scheduler.queuedCount >= configuration.maxQueuedJobs {
                try await Task.sleep(for: .milliseconds(100))
            }
            return try await coordinator.blockingQueue.run(timeout: configuration.walkStepTimeout, operation: "reading folders under \(scan.root)") {
                walker.next(configuration.walkBatch)
            }
        }
        do {
            var files = try await read()
            while !files.isEmpty {
                // The next batch is read while this one is stored (one batch ahead, never two
                // reads at once: the walker's calls still never overlap). Reading folders and
                // writing SQLite then share the two cores: a rescan of 220,000 unchanged files
                // took the sum of both before.
                async let following = read()
                coordinator.scheduler.enqueue(try await store.recordWalkBatch(scan: scan, files: files, jobSize: configuration.jobSize))
                coordinator.dispatchBell.ring()
                files = try await following
            }
            for (directory, reason) in walker.unreadableDirectories {
                coordinator.logger.warning("could not read a folder; its photos are not in this scan", metadata: ["folder": "\(directory)", "reason": "\(reason)"])
            }
            try await store.markWalkComplete(scan: scan)
            coordinator.logger.info("walk complete", metadata: ["scan": "\(scan.id)"])
            coordinator.checkCompletion([scan.id])
        } catch is ScanNotCurrent {
            coordinator.logger.info("walk stopped: the scan is no longer current", metadata: ["scan": "\(scan.id)"])
        } catch is CancellationError {
            return  // shutting down
        } catch {
            let message = "the walk of \(scan.root) failed: \(coordinator.describe(error))"
            coordinator.logger.error("scan failed", metadata: ["scan": "\(scan.id)", "error": "\(message)"])
            try? await store.failScan(id: scan.id, error: message)
            coordinator.stopJobs(ofScan: scan.id, reason: "scan \(scan.id) failed")
        }
    }
}
