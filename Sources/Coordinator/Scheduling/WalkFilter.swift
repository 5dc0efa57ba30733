import Foundation

/// Which files a scan takes (`cull run|scan --include/--exclude/--no-default-skips`),
/// stored with the scan so a walk resumed after a restart takes the same ones.
///
/// A pattern is a shell glob (`*`, `?`, `[...]`), matched without regard to case. Without a
/// `/` it matches a file's or folder's name at any depth (`*.jpg`, `Exports`); with one, the
/// path below the library root (`2019/*/raw`, with `*` not crossing a `/`). An excluded folder
/// is not entered. With includes, only files matching one of them are taken (folders are
/// still entered, unless excluded).
struct WalkFilter: Sendable, Equatable, Codable {
    var include: [String] = []
    var exclude: [String] = []
    /// Skip `builtInSkips` (on unless `--no-default-skips`).
    var defaultSkips = true

    /// What no photo library means to hold: hidden files and folders (`.Trash`, `.DS_Store`,
    /// `.thumbnails`), NAS housekeeping (Synology's `@eaDir` thumbnails, `#recycle`,
    /// `#snapshot`), Lightroom's preview caches (`* Previews.lrdata`, copies of photos at
    /// several sizes), Windows' recycle bin and `lost+found`.
    static let builtInSkips = [".*", "@eaDir", "#recycle", "#snapshot", "*.lrdata", "$RECYCLE.BIN", "System Volume Information", "lost+found"]

    init(include: [String] = [], exclude: [String] = [], defaultSkips: Bool = true) {
        self.include = include
        self.exclude = exclude
        self.defaultSkips = defaultSkips
    }

    /// Throws a message for a pattern that can match nothing useful (empty, or a path pattern
    /// starting with `/`: patterns are relative to the library root).
    func validated() throws(WalkFilterError) -> WalkFilter {
        for pattern in include + exclude {
            if pattern.trimmingCharacters(in: .whitespaces).isEmpty { throw WalkFilterError("an empty --include or --exclude pattern matches nothing") }
            if pattern.hasPrefix("/") {
                throw WalkFilterError("'\(pattern)': patterns are relative to the scanned folder; write '\(pattern.drop { $0 == "/" })'")
            }
        }
        return self
    }

    /// Whether the walk leaves out the folder `name` at `relative` (its path below the root).
    func skipsFolder(name: String, relative: String) -> Bool { Matcher(self).skipsFolder(name: name, relative: relative) }

    /// Whether the walk takes the file `name` at `relative`.
    func takesFile(name: String, relative: String) -> Bool { Matcher(self).takesFile(name: name, relative: relative) }

    /// The filter with its patterns prepared once: the walk asks it about every entry of the
    /// library (a rescan of 220,000 files is about a second in all, so each answer must cost
    /// a string comparison, not eight `fnmatch` calls on fresh lowercased copies).
    struct Matcher: Sendable {
        private let skips: [Glob]
        private let includes: [Glob]
        /// Whether any pattern looks at the path below the root (else only names are asked).
        let needsPath: Bool

        init(_ filter: WalkFilter) {
            skips = ((filter.defaultSkips ? WalkFilter.builtInSkips : []) + filter.exclude).map(Glob.init)
            includes = filter.include.map(Glob.init)
            needsPath = (skips + includes).contains(where: \.onPath)
        }

        func skipsFolder(name: String, relative: String) -> Bool {
            guard !skips.isEmpty else { return false }
            let name = name.lowercased(), relative = needsPath ? relative.lowercased() : ""
            return skips.contains { $0.matches(name: name, relative: relative) }
        }

        func takesFile(name: String, relative: String) -> Bool {
            let lowerName = name.lowercased(), lowerRelative = needsPath ? relative.lowercased() : ""
            if skips.contains(where: { $0.matches(name: lowerName, relative: lowerRelative) }) { return false }
            return includes.isEmpty || includes.contains { $0.matches(name: lowerName, relative: lowerRelative) }
        }
    }

    /// One pattern, lowercased (any case matches: glibc's FNM_CASEFOLD is a GNU extension the
    /// Swift Glibc module does not export), with the common shapes (`name`, `*.ext`, `.*`)
    /// told apart so they need no `fnmatch`.
    struct Glob: Sendable {
        enum Shape: Sendable { case exact(String), suffix(String), prefix(String), general(String) }
        let shape: Shape
        /// Matched against the path below the root (the pattern has a `/`), else the name.
        let onPath: Bool

        init(_ pattern: String) {
            let lower = pattern.lowercased()
            onPath = lower.contains("/")
            let special: Set<Character> = ["*", "?", "[", "\\"]
            let body = lower.dropFirst(), head = lower.dropLast()
            if !lower.contains(where: special.contains) {
                shape = .exact(lower)
            } else if lower.hasPrefix("*"), !body.contains(where: special.contains) {
                shape = .suffix(String(body))
            } else if lower.hasSuffix("*"), !head.contains(where: special.contains) {
                shape = .prefix(String(head))
            } else {
                shape = .general(lower)
            }
        }

        /// `name` and `relative` already lowercased.
        func matches(name: String, relative: String) -> Bool {
            let subject = onPath ? relative : name
            switch shape {
            case .exact(let text): return subject == text
            case .suffix(let text): return subject.hasSuffix(text)
            case .prefix(let text): return subject.hasPrefix(text)
            case .general(let pattern): return fnmatch(pattern, subject, onPath ? FNM_PATHNAME : 0) == 0
            }
        }
    }

    /// "" for the defaults; else the options that made it, for the scan's log line.
    var summary: String {
        var parts = include.map { "--include '\($0)'" } + exclude.map { "--exclude '\($0)'" }
        if !defaultSkips { parts.append("--no-default-skips") }
        return parts.joined(separator: " ")
    }
}

struct WalkFilterError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
