@testable import Coordinator
import Analysis
import Foundation
import Shared
import Testing

/// Pipeline 4's features go from a RESULT through SQLite to what grouping reads, unchanged;
/// a hostile content box is stored as none.
@Suite("Feature storage", .timeLimit(.minutes(5)))
struct FeatureStorageTests {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cull-features-\(UUID())").path

    /// A layout thumbnail whose turned frame is not its frame.
    static let thumbnail: [UInt8] = (0..<LayoutThumbnail.side * LayoutThumbnail.side).map { UInt8(($0 % 32) * 6 + ($0 / 32)) }

    @Test("mirror hash, turned frame, content box, chroma layout, band windows and camera EXIF round-trip; a box outside the frame or a chroma layout of the wrong size reads as none")
    func roundTrip() async throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try await CullStore.open(path: directory + "/cull.sqlite", on: BlockingQueue(label: "test", limit: 1))
        let (scan, _) = try await store.startScan(root: "/lib")
        let files = (0..<3).map { WalkedFile(path: "/lib/\($0).jpg", size: 100, mtimeNanoseconds: 1) }
        let job = try #require(try await store.recordWalkBatch(scan: scan, files: files, jobSize: 3).first)
        let attempt = try #require(try await store.recordDispatches([(job.jobID, "w1")])[job.jobID])
        let windows = (0..<UInt64(FeatureWindow.hashedCount)).map { $0 &* 0x9E37_79B9_7F4A_7C15 }
        let boxes: [Cull_V1_ContentBox?] = [
            .with { $0.x = 0; $0.y = 0.1; $0.width = 1; $0.height = 0.8; $0.phash = 0xFEED },
            nil,
            .with { $0.x = 0.5; $0.y = 0; $0.width = 0.9; $0.height = 1; $0.phash = 0xBAD },  // past the right edge
        ]
        let result = Cull_V1_Result.with { result in
            result.jobID = job.jobID
            result.generation = job.generation
            result.attempt = attempt
            result.outcomes = job.photos.enumerated().map { index, photo in
                .with {
                    $0.photoID = photo.photoID
                    $0.features = .with {
                        $0.sha256 = Data(repeating: UInt8(index), count: 32)
                        $0.phash = UInt64(index)
                        $0.windowPhash = windows
                        $0.mirrorPhash = index == 1 ? 0 : 0xC0FFEE + UInt64(index)
                        if let box = boxes[index] { $0.content = box }
                        $0.chroma = Data(repeating: UInt8(100 + index), count: index == 2 ? 127 : 128)
                        if index == 0 { $0.detail = Data((0..<DetailLayout.byteCount).map { UInt8($0 % 251) }) }
                        if index == 0 { $0.thumbnail = Data(Self.thumbnail) }
                        $0.width = 16  // wide enough for a centre square (`CentreSquare`)
                        $0.height = 10 + UInt32(index)
                        $0.sharpness = 12.5 + Double(index)
                        $0.format = "jpeg"
                        $0.source = index == 1 ? .embeddedPreview : .mainImage
                        if index != 1 {  // a camera's file; the third saved by an editor
                            $0.cameraMake = "Canon"
                            $0.cameraModel = "EOS R6"
                            $0.captureTime = "2024:06:01 10:02:03.45+02:00"
                            $0.modifyTime = "2024:06:01 10:02:03"
                            $0.software = index == 0 ? "Firmware Version 1.8.1" : "Adobe Lightroom Classic 13.0 (Windows)"
                            $0.exposureTime = 0.004
                            $0.fNumber = 2.8
                            $0.iso = 400
                            $0.exposureBias = -0.7
                        }
                    }
                }
            }
        }
        _ = try await store.applyResults([ReceivedResult(result: result, workerID: "w1", pipelineVersion: PhotoAnalyzer.pipelineVersion)])
        let (read, features) = try await store.groupingInput(scan: try #require(try await store.scan(id: scan.id)))
        let photos = read.sorted { $0.pHash < $1.pHash }
        #expect(photos.count == 3)
        // The light columns grouping reads of every photo.
        #expect(photos.map(\.sha256) == (0..<3).map { [UInt8](repeating: UInt8($0), count: 32) })
        #expect(photos.map(\.height) == [10, 11, 12] && photos.allSatisfy { $0.width == 16 && $0.fileSize == 100 && $0.modified == 1 })
        #expect(photos.map(\.sharpness) == [12.5, 13.5, 14.5] && photos.map(\.fromPreview) == [false, true, false])
        let taken = try #require(CaptureTime.seconds("2024:06:01 10:02:03")) + 0.45 - 7200
        #expect(photos.map(\.captureTime) == [taken, nil, taken])
        #expect(photos.map(\.isCameraOriginal) == [true, false, false], "the third names an editor in its Software")
        let settings = ShotSettings.key(exposureTime: 0.004, fNumber: 2.8, iso: 400, exposureBias: -0.7)
        #expect(settings != 0 && photos.map(\.exposure) == [settings, 0, settings])
        // Window hashes are read apart: whole for listings, the plan's for candidate search.
        #expect(photos.allSatisfy { $0.windowPHashes.isEmpty }, "grouping's input leaves the window hashes out")
        let stored = try store.windowHashes(of: photos.map(\.id))
        #expect(photos.allSatisfy { stored[$0.id] == windows })
        let plan = CandidatePlan()
        let hashes = try store.candidateHashes(of: photos.map(\.id).reversed(), plan: plan, holdingCropWindows: true)
        #expect(hashes.count == 3 && hashes.frames == [2, 1, 0], "one row per id, in the order asked")
        #expect(plan.windows.allSatisfy { k in hashes.window(0, k) == windows[k] })
        let light = try store.candidateHashes(of: photos.map(\.id), plan: plan, holdingCropWindows: false)
        #expect(light.held == Array(Set(plan.overlayWindows)).sorted() && light.windows.count == 3 * light.held.count)
        // The same hashes read with the rows, in their order; handed over once, for those rows only.
        let withRows = try #require(features.takeSearchHashes(for: read))
        let apart = try store.candidateHashes(of: read.map(\.id), plan: plan, holdingCropWindows: false)
        #expect(withRows.held == apart.held && withRows.frames == apart.frames && withRows.windows == apart.windows)
        #expect(withRows.windowCounts == apart.windowCounts && withRows.mirrors == apart.mirrors && withRows.hasMirror == apart.hasMirror)
        #expect(withRows.contentRows == apart.contentRows && withRows.contents == apart.contents)
        #expect(withRows.oneWay == apart.oneWay && withRows.oneWayHeld == apart.oneWayHeld)
        #expect(features.takeSearchHashes(for: read) == nil, "handed over once")
        let again = try await store.groupingInput(scan: try #require(try await store.scan(id: scan.id)))
        #expect(again.features.takeSearchHashes(for: again.photos.reversed()) == nil, "not for the rows in another order")
        let crops = try store.cropWindows(of: photos.map(\.id)[1...], plan: plan)
        #expect(crops == Array(repeating: plan.cropWindows.map { windows[$0] }, count: 2).flatMap { $0 })
        #expect(hashes.mirrors == [0xC0FFEE + 2, 0, 0xC0FFEE] && hashes.contentRows == [2] && hashes.contents == [0xFEED])
        #expect(photos.map(\.mirrorPHash) == [0xC0FFEE, nil, 0xC0FFEE + 2], "0 is a worker before pipeline 4: no mirror hash")
        // The turned frame's pHash is the store's, from the thumbnail; none without one.
        let turned = try #require(TurnedFrame.pHash(thumbnail: Self.thumbnail))
        // And so is its centre square's, where its frame has one.
        let square = CentreSquare.pHash(thumbnail: Self.thumbnail, width: photos[0].width, height: photos[0].height)
        #expect(photos.map(\.turnedPHash) == [turned, nil, nil])
        #expect(square != nil)
        #expect(hashes.oneWay == [0, 0, 0, 0, turned, square ?? 0] && hashes.oneWayHeld == [0, 0, 3])
        #expect(photos.map(\.squarePHash) == [square, nil, nil])
        #expect(photos[0].contentBox.map { [$0.x, $0.y, $0.width, $0.height].map { Float($0) } } == [0, 0.1, 1, 0.8])
        #expect(photos[0].contentPHash == 0xFEED)
        #expect(photos[1].contentBox == nil && photos[1].contentPHash == nil)
        #expect(photos[2].contentBox == nil && photos[2].contentPHash == nil, "a box past the frame's edge is not stored")
        // Layouts are read apart, for the photos grouping judges.
        #expect(photos.allSatisfy { $0.thumbnail.isEmpty && $0.chroma.isEmpty }, "grouping's input leaves the layouts out")
        let layouts = try store.layouts(of: photos.map(\.id))
        #expect(photos.map { layouts[$0.id]?.chroma } == [[UInt8](repeating: 100, count: 128), [UInt8](repeating: 101, count: 128), []])
        #expect(photos.map { layouts[$0.id]?.detail } == [(0..<DetailLayout.byteCount).map { UInt8($0 % 251) }, [], []],
                "a textured photo's detail layout, stored and read back; none for the others")
    }

    @Test("reads by id over many chunks of 500, the last one short: every photo's features, whatever order the ids come in")
    func readsInChunks() async throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = try await CullStore.open(path: directory + "/cull.sqlite", on: BlockingQueue(label: "test", limit: 1))
        let (scan, _) = try await store.startScan(root: "/lib")
        let count = 2 * CullStore.featureChunk + 203
        let files = (0..<count).map { WalkedFile(path: "/lib/\($0).jpg", size: 100, mtimeNanoseconds: 1) }
        func windows(_ seed: Int) -> [UInt64] { (0..<UInt64(FeatureWindow.hashedCount)).map { UInt64(seed) << 8 | $0 } }
        for job in try await store.recordWalkBatch(scan: scan, files: files, jobSize: 400) {
            let attempt = try #require(try await store.recordDispatches([(job.jobID, "w1")])[job.jobID])
            let result = Cull_V1_Result.with { result in
                result.jobID = job.jobID
                result.generation = job.generation
                result.attempt = attempt
                result.outcomes = job.photos.map { photo in
                    let seed = Int(photo.path.dropFirst(5).dropLast(4))!
                    return .with {
                        $0.photoID = photo.photoID
                        $0.features = .with {
                            $0.sha256 = Data(repeating: UInt8(seed % 251), count: 32)
                            $0.phash = UInt64(seed)
                            $0.windowPhash = seed % 7 == 0 ? [] : windows(seed)
                            $0.mirrorPhash = UInt64(seed) + 1
                            $0.thumbnail = Data((0..<(LayoutThumbnail.side * LayoutThumbnail.side)).map { UInt8(truncatingIfNeeded: $0 &+ seed) })
                            $0.chroma = Data(repeating: UInt8(seed % 256), count: 128)
                            $0.width = 10
                            $0.height = 10
                        }
                    }
                }
            }
            _ = try await store.applyResults([ReceivedResult(result: result, workerID: "w1", pipelineVersion: PhotoAnalyzer.pipelineVersion)])
        }
        let finished = try #require(try await store.scan(id: scan.id))
        let photos = try await store.groupingInput(scan: finished).photos
        #expect(photos.count == count && photos.map(\.id) == photos.map(\.id).sorted(), "in the order of the ids")
        // Read in two halves at once: the rows and hashes one read gives, in the same order.
        let (halves, halvesFeatures) = try await store.groupingInput(scan: finished, inTwoFrom: 1)
        #expect(halves.map(\.id) == photos.map(\.id) && halves.map(\.path) == photos.map(\.path) && halves.map(\.pHash) == photos.map(\.pHash))
        let halvesHashes = try #require(halvesFeatures.takeSearchHashes(for: halves))
        let apart = try store.candidateHashes(of: photos.map(\.id), plan: CandidatePlan(), holdingCropWindows: false)
        #expect(halvesHashes.frames == apart.frames && halvesHashes.windows == apart.windows && halvesHashes.mirrors == apart.mirrors)
        let seedOf = Dictionary(uniqueKeysWithValues: photos.map { ($0.id, Int($0.pHash)) })
        var random = SplitMix64(seed: 3)
        let shuffled = photos.map(\.id).shuffled(using: &random)
        let hashes = try store.candidateHashes(of: shuffled, plan: CandidatePlan(), holdingCropWindows: false)
        #expect(hashes.frames == shuffled.map { UInt64(seedOf[$0]!) }, "one row per id, in the order asked")
        #expect(hashes.mirrors == shuffled.map { UInt64(seedOf[$0]!) + 1 })
        #expect(shuffled.indices.allSatisfy { row in
            let seed = seedOf[shuffled[row]]!
            return hashes.held.allSatisfy { k in hashes.window(row, k) == (seed % 7 == 0 ? 0 : windows(seed)[k]) }
        })
        let probed = CandidatePlan().probedCropWindows
        let crops = try store.cropWindows(of: shuffled[...], plan: CandidatePlan())
        #expect(crops == shuffled.flatMap { id in probed.map { k in seedOf[id]! % 7 == 0 ? 0 : windows(seedOf[id]!)[k] } })
        let asked = [5, 9, 5]  // an id asked twice takes its windows in both places
        #expect(try store.cropWindows(of: asked.map { shuffled[$0] }[...], plan: CandidatePlan())
                == asked.flatMap { crops[$0 * probed.count..<($0 + 1) * probed.count] })
        let stored = try store.windowHashes(of: shuffled)
        #expect(stored.count == count && shuffled.allSatisfy { stored[$0] == (seedOf[$0]! % 7 == 0 ? [] : windows(seedOf[$0]!)) })
        let layouts = try store.layouts(of: shuffled)
        #expect(layouts.count == count && shuffled.allSatisfy { id in
            let seed = seedOf[id]!
            return layouts[id]?.chroma == [UInt8](repeating: UInt8(seed % 256), count: 128)
                && layouts[id]?.thumbnail == (0..<(LayoutThumbnail.side * LayoutThumbnail.side)).map { UInt8(truncatingIfNeeded: $0 &+ seed) }
        })
    }

    @Test("window hash and content box columns decode what they encode, from a slice of a larger buffer too; a torn column reads as none")
    func columnsRoundTrip() throws {
        var random = SplitMix64(seed: 17)
        let hashes = (0..<60).map { _ in random.next() } + [0, .max, 1 << 63]
        let encoded = try #require(WindowHashesColumn.encode(hashes))
        #expect(WindowHashesColumn.decode(encoded) == hashes)
        // Little-endian, whatever the machine: the first byte is the first hash's lowest.
        #expect(encoded.first == UInt8(truncatingIfNeeded: hashes[0]))
        let padded = Data([1, 2, 3]) + encoded + Data([4])
        #expect(WindowHashesColumn.decode(padded[3..<(3 + encoded.count)]) == hashes)
        #expect(WindowHashesColumn.decode(encoded.dropLast()) == [])
        #expect(WindowHashesColumn.decode(nil) == [])
        let box = Cull_V1_ContentBox.with { $0.x = 0.125; $0.y = 0.1; $0.width = 0.75; $0.height = 0.8 }
        let column = try #require(ContentBoxColumn.encode(box))
        let decoded = try #require(ContentBoxColumn.decode((Data([9]) + column).dropFirst()))  // a slice past a byte
        #expect([decoded.x, decoded.y, decoded.width, decoded.height] == [box.x, box.y, box.width, box.height].map(Double.init))
        #expect(ContentBoxColumn.decode(column.dropFirst()) == nil)
    }
}
