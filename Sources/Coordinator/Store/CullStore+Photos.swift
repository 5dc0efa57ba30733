import Foundation
import GRDB
import Shared

/// Per-photo outcomes of a scan, for `cull photos`: a page at a time, in path order.
extension CullStore {
    static let maxPhotosPage: UInt32 = 10_000

    /// The page `request` asks for: photos of the scan (the latest scan when 0) after
    /// `request.after`, with `request.status` if given. Keyset paging on the (library, path)
    /// index: each page costs its own rows, however deep into a million photos it is.
    func photosPage(_ request: Cull_V1_PhotosRequest) async throws -> Cull_V1_PhotosReply {
        let limit = Int(request.limit == 0 ? 1000 : min(request.limit, Self.maxPhotosPage))
        guard request.status.isEmpty || PhotoStatus(rawValue: request.status) != nil else {
            throw StoreError(description: "unknown photo status '\(request.status)': analysed, failed or pending")
        }
        return try await writer.read { db in
            let scan: ScanRecord
            if request.scanID == 0 {
                guard let id = try Int64.fetchOne(db, sql: "SELECT id FROM scans ORDER BY id DESC LIMIT 1"), let latest = try Self.scan(db, id: id) else {
                    throw StoreError(description: "no scan yet; run `cull run DIR` or `cull scan DIR` first")
                }
                scan = latest
            } else {
                guard let found = try Self.scan(db, id: request.scanID) else {
                    throw StoreError(description: "no scan \(request.scanID); `cull status` lists them")
                }
                scan = found
            }
            var sql = """
                SELECT p.path, p.status, p.error_kind, p.error_message, p.size, p.width, p.height, p.format
                FROM photos p JOIN photo_seen s ON s.photo_id = p.id
                WHERE p.library_id = ? AND p.path > ? AND s.seen_generation = ?
                """
            var arguments: StatementArguments = [scan.libraryID, request.after, scan.generation]
            if !request.status.isEmpty {
                sql += " AND p.status = ?"
                _ = arguments.append(contentsOf: [request.status])
            }
            sql += " ORDER BY p.path LIMIT ?"
            _ = arguments.append(contentsOf: [limit + 1])
            let rows = try Row.fetchAll(db, sql: sql, arguments: arguments)
            var reply = Cull_V1_PhotosReply()
            reply.scanID = scan.id
            reply.root = scan.root
            reply.more = rows.count > limit
            reply.photos = rows.prefix(limit).map { row in
                var photo = Cull_V1_PhotoOutcome()
                photo.path = row["path"]
                photo.status = row["status"]
                photo.errorKind = row["error_kind"] ?? ""
                photo.errorMessage = row["error_message"] ?? ""
                photo.fileSize = UInt64(max(0, (row["size"] as Int64?) ?? 0))
                photo.width = UInt32(clamping: (row["width"] as Int64?) ?? 0)
                photo.height = UInt32(clamping: (row["height"] as Int64?) ?? 0)
                photo.format = row["format"] ?? ""
                return photo
            }
            return reply
        }
    }
}
