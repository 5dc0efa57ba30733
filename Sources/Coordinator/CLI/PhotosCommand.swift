import ArgumentParser
import Foundation
import Shared

struct PhotosCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "photos",
        abstract: "Lists a scan's photos with their outcome: analysed, failed (with the reason) or pending.",
        discussion: "Reads `cull run`'s results (--db), or a daemon's with --control. `cull photos --status failed` lists what could not be analysed and why."
    )

    enum Status: String, ExpressibleByArgument, CaseIterable {
        case all, analysed, failed, pending
        init?(argument: String) { self.init(rawValue: argument.lowercased()) }
    }

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case table, csv, json
        init?(argument: String) { self.init(rawValue: argument.lowercased()) }
    }

    @Option(help: "Only photos with this outcome.")
    var status: Status = .all

    @Option(help: "The scan (default: the latest one).")
    var scan: Int64 = 0

    @Option(help: "Output: table, csv (path,status,error_kind,error_message,bytes,width,height,format) or json.")
    var format: Format = .table

    @OptionGroup var source: ResultsSourceOptions

    func run() async throws {
        try await reportingErrors {
            var request = Cull_V1_PhotosRequest()
            request.scanID = scan
            request.status = status == .all ? "" : status.rawValue
            request.limit = 5_000
            var count = 0
            if format == .csv { write("path,status,error_kind,error_message,bytes,width,height,format\n") }
            if format == .json { write("[") }
            // A page at a time: a million photos are listed without holding them all.
            while true {
                guard case .photosReply(let reply) = try await source.answer(.photosRequest(request)) else { throw CLIError.unexpectedAnswer }
                request.scanID = reply.scanID  // every page from the same scan
                var out = ""
                for photo in reply.photos {
                    out += line(photo, first: count == 0)
                    count += 1
                }
                write(out)
                guard reply.more, let last = reply.photos.last else { break }
                request.after = last.path
            }
            if format == .json { write(count == 0 ? "]\n" : "\n]\n") }
            if format == .table && count == 0 { write("No photos\(status == .all ? "" : " \(status.rawValue)") in this scan.\n") }
        }
    }

    private func write(_ text: String) { FileHandle.standardOutput.write(Data(text.utf8)) }

    private func line(_ photo: Cull_V1_PhotoOutcome, first: Bool) -> String {
        switch format {
        case .table:
            let reason = photo.errorKind.isEmpty ? "" : "  \(photo.errorKind): \(photo.errorMessage)"
            return "\(photo.status.padding(toLength: 9, withPad: " ", startingAt: 0)) \(photo.path)\(reason)\n"
        case .csv:
            return [photo.path, photo.status, photo.errorKind, photo.errorMessage, "\(photo.fileSize)", "\(photo.width)", "\(photo.height)", photo.format]
                .map(GroupsFormatter.csvField).joined(separator: ",") + "\n"
        case .json:
            struct Photo: Encodable {
                var path: String; var status: String; var errorKind: String?; var errorMessage: String?
                var bytes: UInt64; var width: UInt32; var height: UInt32; var format: String
                enum CodingKeys: String, CodingKey { case path, status, bytes, width, height, format, errorKind = "error_kind", errorMessage = "error_message" }
            }
            let value = Photo(path: photo.path, status: photo.status, errorKind: photo.errorKind.isEmpty ? nil : photo.errorKind,
                              errorMessage: photo.errorMessage.isEmpty ? nil : photo.errorMessage, bytes: photo.fileSize,
                              width: photo.width, height: photo.height, format: photo.format)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            let json = (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
            return (first ? "\n  " : ",\n  ") + json
        }
    }
}
