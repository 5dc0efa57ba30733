@testable import Coordinator
import Foundation
import Shared
import Testing

/// `cull photos`' store query: pages in path order that meet without gaps or repeats, filtered
/// by status, from the scan asked for.
@Suite("Photos pages", .timeLimit(.minutes(5)))
struct PhotosPageTests {
    @Test("pages of a scan's photos in path order, each photo once; a status filter; an unknown status is refused")
    func pages() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cull-photos-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try await CullStore.open(path: directory + "/cull.sqlite", on: BlockingQueue(label: "test", limit: 1))
        let (scan, _) = try await store.startScan(root: "/lib")
        let files = (0..<25).map { WalkedFile(path: String(format: "/lib/%02d.jpg", $0), size: 100, mtimeNanoseconds: 1) }
        _ = try await store.recordWalkBatch(scan: scan, files: files, jobSize: 25)

        var request = Cull_V1_PhotosRequest()
        request.limit = 10
        var seen: [String] = []
        var pages = 0
        while true {
            let reply = try await store.photosPage(request)
            #expect(reply.scanID == scan.id && reply.root == "/lib")
            seen += reply.photos.map(\.path)
            pages += 1
            guard reply.more, let last = reply.photos.last else { break }
            request.after = last.path
        }
        #expect(pages == 3)
        #expect(seen == files.map(\.path), "every photo once, in path order")
        #expect(Set(try await store.photosPage(request).photos.map(\.status)) == ["pending"])

        var failed = Cull_V1_PhotosRequest()
        failed.status = "failed"
        #expect(try await store.photosPage(failed).photos.isEmpty)
        failed.status = "broken"
        await #expect(throws: StoreError.self) { try await store.photosPage(failed) }
    }
}
