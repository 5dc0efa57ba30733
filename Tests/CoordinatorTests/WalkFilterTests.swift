@testable import Coordinator
import Foundation
import Testing

/// Which files a scan takes: globs on names and on paths below the root, in any case; the
/// built-in skips and turning them off; a real folder tree walked with a filter.
@Suite("Walk filter")
struct WalkFilterTests {
    @Test("names at any depth, paths below the root, any case; includes take only matching files")
    func matching() {
        let filter = WalkFilter(include: ["*.jpg", "*.HEIC"], exclude: ["Exports", "2019/*/raw"])
        #expect(filter.takesFile(name: "IMG_1.JPG", relative: "2020/IMG_1.JPG"))
        #expect(filter.takesFile(name: "IMG_2.heic", relative: "IMG_2.heic"))
        #expect(!filter.takesFile(name: "IMG_3.png", relative: "IMG_3.png"), "not included")
        #expect(filter.skipsFolder(name: "exports", relative: "2020/exports"))
        #expect(filter.skipsFolder(name: "raw", relative: "2019/06/raw"))
        #expect(!filter.skipsFolder(name: "raw", relative: "2020/06/raw"))
        #expect(!filter.skipsFolder(name: "raw", relative: "2019/06/07/raw"), "* does not cross a /")
        #expect(WalkFilter.Glob("[ab]*.jp?").matches(name: "b1.jpe", relative: ""))
    }

    @Test("built-in skips: hidden files, NAS housekeeping, Lightroom previews; --no-default-skips takes them")
    func builtInSkips() {
        let defaults = WalkFilter()
        for name in [".DS_Store", ".trash", "@eaDir", "#recycle", "#snapshot", "Lightroom Catalog Previews.lrdata", "$RECYCLE.BIN", "lost+found"] {
            #expect(defaults.skipsFolder(name: name, relative: name), "\(name)")
        }
        #expect(!defaults.skipsFolder(name: "Holidays", relative: "Holidays"))
        let everything = WalkFilter(defaultSkips: false)
        #expect(!everything.skipsFolder(name: "@eaDir", relative: "@eaDir"))
        #expect(everything.takesFile(name: ".hidden.jpg", relative: ".hidden.jpg"))
    }

    @Test("patterns are checked: an empty one or one starting with / is refused with what to write")
    func validation() {
        #expect(throws: WalkFilterError.self) { try WalkFilter(exclude: [" "]).validated() }
        #expect(throws: WalkFilterError.self) { try WalkFilter(include: ["/2019/*.jpg"]).validated() }
    }

    @Test("a real tree: excluded folders are not entered, only included files are listed")
    func walk() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("cull-walkfilter-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        for path in ["a/1.jpg", "a/2.png", "a/Exports/3.jpg", "b/4.JPG", ".hidden/5.jpg", "c.lrdata/6.jpg", "b/@eaDir/7.jpg"] {
            let full = root + "/" + path
            try FileManager.default.createDirectory(atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Data([1]).write(to: URL(fileURLWithPath: full))
        }
        func walked(_ filter: WalkFilter) -> Set<String> {
            let walker = LibraryWalker(root: root, filter: filter)
            var found = Set<String>()
            while case let batch = walker.next(100), !batch.isEmpty { found.formUnion(batch.map { String($0.path.dropFirst(root.count + 1)) }) }
            return found
        }
        #expect(walked(WalkFilter()) == ["a/1.jpg", "a/2.png", "a/Exports/3.jpg", "b/4.JPG"])
        #expect(walked(WalkFilter(include: ["*.jpg"], exclude: ["exports"])) == ["a/1.jpg", "b/4.JPG"])
        #expect(walked(WalkFilter(defaultSkips: false)).count == 7)
    }
}
