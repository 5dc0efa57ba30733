import Foundation

/// One step of the keeper chain a user can order (`--prefer`, `CULL_PREFER`).
enum KeeperRule: String, CaseIterable, Sendable {
    /// A camera original (camera EXIF in a camera's format) over exports and re-encodes.
    case original
    /// More pixels.
    case pixels
    /// The earlier capture time (a photo that has one over one that has none).
    case earliest
    /// The larger file.
    case largest
    /// The file modified first: of identical copies, the one copied from (a copy made without
    /// keeping times is newer), and an original predates its edits.
    case oldest
}

/// Why a group's keeper was chosen: the first step of the chain that told it from the next
/// best member. Stored with the group and shown with it.
enum KeeperReason: String, Sendable, Equatable, CaseIterable {
    case reference
    case original
    case notUpscaled = "not upscaled"
    /// The `pixels` step, decided by a border: the others are this picture with plain borders
    /// added, more pixels and no more of the picture.
    case notBordered = "not bordered"
    case pixels, earliest, largest, oldest
    /// Nothing else told them apart: the shorter path, then the first in alphabetical order.
    case path
}

/// What a group member is to its keeper.
enum MemberRelation: String, Sendable, Equatable {
    case keeper
    /// The same bytes.
    case identical
    /// The same picture, edited (resized, re-encoded, toned, cropped, overlaid).
    case editedCopy = "edited copy"
    /// More pixels than the camera original it came from: no more detail, only a bigger file.
    case upscaledCopy = "upscaled copy"
    /// Another shot of the same moment (a similar group): kept, never a copy to remove.
    case similarShot = "similar shot"
    /// Another path of a file listed before it in the group (a hard link, or a link to a
    /// file): one photo, never a copy that could go.
    case sameFile = "same file"
    /// The other half of a camera's RAW + JPEG pair in the group (`RawJPEGPairs`): kept with
    /// its partner, never a copy that could go unless `--pairs` names the half to keep.
    case rawJPEGPair = "raw+jpeg pair"

    /// The relations (as the wire spells them) whose members never move, whatever their group:
    /// what the summary counts as could go and `cull apply` moves both leave them out.
    static let neverMoving: Set<String> = [sameFile.rawValue, rawJPEGPair.rawValue]
}

/// How a group's keeper is chosen (docs/FEATURES.md, "Keepers"): photos in reference folders
/// first (always kept, never moved), never an upscaled copy, then `rules` in order, then the
/// path. The default is what a photographer keeps: the camera original, then the most pixels,
/// the earliest capture, the largest file, the file modified first.
struct KeeperPolicy: Sendable, Equatable {
    static let defaultRules: [KeeperRule] = [.original, .pixels, .earliest, .largest, .oldest]

    var rules: [KeeperRule] = Self.defaultRules
    /// Absolute folders (no trailing slash) whose photos are always kept.
    var referenceFolders: [String] = []

    init(rules: [KeeperRule] = Self.defaultRules, referenceFolders: [String] = []) {
        self.rules = rules
        self.referenceFolders = referenceFolders.map { $0.count > 1 && $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
    }

    /// Rules from their names, "original,pixels,earliest" (any case, spaces allowed); each at
    /// most once. Throws a message naming the choices.
    static func rules(parsing text: String) throws(KeeperPolicyError) -> [KeeperRule] {
        let names = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty }
        guard !names.isEmpty else { throw KeeperPolicyError("no keeper rules given; choose from \(Self.choices)") }
        var rules: [KeeperRule] = []
        for name in names {
            guard let rule = KeeperRule(rawValue: name) else {
                throw KeeperPolicyError("unknown keeper rule '\(name)'; choose from \(Self.choices) (reference folders always come first, the path last)")
            }
            guard !rules.contains(rule) else { throw KeeperPolicyError("keeper rule '\(name)' is named twice") }
            rules.append(rule)
        }
        return rules
    }

    static var choices: String { KeeperRule.allCases.map(\.rawValue).joined(separator: ", ") }

    /// The chain as written to the scan and shown: "original,pixels,earliest,largest,oldest".
    var rulesText: String { rules.map(\.rawValue).joined(separator: ",") }

    func isReference(_ path: String) -> Bool {
        referenceFolders.contains { folder in path.hasPrefix(folder) && (folder == "/" || path.dropFirst(folder.count).first == "/") }
    }

    /// What the chain knows of a member beyond the photo itself: whether it is an upscaled copy,
    /// or a bordered one, of another member.
    struct Standing: Equatable {
        var upscaled = false
        var bordered = false
    }

    /// The keeper of a group's members (non-empty), why, and which members are upscaled
    /// copies: not camera originals, with more pixels than a camera original of the group.
    /// `similar`: the members are different shots, none a copy of another (no upscaled ones).
    ///
    /// A member with even plain borders around its picture (pipeline 4's content box,
    /// `hasAddedBorders`) in a group that also holds the picture without them, as large
    /// (`isBorderedCopy`), is a **bordered copy**: a frame added for a print or a post, more
    /// pixels and no more of the picture, so `pixels` puts it after the members without
    /// (reason `not bordered`). On the hard development set the copy with
    /// a 12% white border was the keeper of all 21 of its groups by pixels.
    func choose(_ members: [GroupingPhoto], similar: Bool) -> (keeper: Int, reason: KeeperReason, upscaled: [Bool]) {
        let smallestOriginal = similar ? nil : members.filter(\.isCameraOriginal).map { $0.width * $0.height }.min()
        let largestUnbordered = similar ? nil : members.filter { !Self.hasAddedBorders($0) }.map { Double($0.width * $0.height) }.max()
        let standing = members.map { photo in
            Standing(upscaled: smallestOriginal.map { !photo.isCameraOriginal && photo.width * photo.height > $0 } ?? false,
                     bordered: largestUnbordered.map { Self.isBorderedCopy(photo, unborderedPixels: $0) } ?? false)
        }
        let upscaled = standing.map(\.upscaled)
        var keeper = 0
        for index in members.indices.dropFirst()
        where compare(members[index], standing[index], members[keeper], standing[keeper]).firstIsBetter {
            keeper = index
        }
        // The reason is told against the next best member that is not a byte copy of the
        // keeper (between identical copies only the file's place and time can decide, which
        // says little about why this photo is kept), unless all of them are.
        let identical = members.indices.filter { $0 != keeper && !members[$0].sha256.isEmpty && members[$0].sha256 == members[keeper].sha256 }
        let rivals = members.indices.filter { $0 != keeper && !identical.contains($0) }
        var runnerUp: Int?
        for index in rivals.isEmpty ? identical : rivals {
            if let best = runnerUp, !compare(members[index], standing[index], members[best], standing[best]).firstIsBetter { continue }
            runnerUp = index
        }
        let reason = runnerUp.map { compare(members[keeper], standing[keeper], members[$0], standing[$0]).reason } ?? .path
        return (keeper, reason, upscaled)
    }

    /// Whether `photo` has borders added (`hasAddedBorders`) around a picture no larger than
    /// `unborderedPixels` (a member without such borders), give or take `pictureSlack`: a
    /// bordered copy, not an original a small copy was made from.
    static func isBorderedCopy(_ photo: GroupingPhoto, unborderedPixels: Double) -> Bool {
        guard hasAddedBorders(photo), let box = photo.contentBox else { return false }
        let picture = Double(photo.width * photo.height) * box.width * box.height
        return unborderedPixels >= picture * (1 - pictureSlack)
    }

    /// Whether the photo's plain borders (`ContentBox`) look added: as wide at both ends of an
    /// axis, as a mat, a frame for a post or a letterbox is (a polaroid-style frame on the left
    /// and right at least). `ContentBox` also finds the plain parts of photos themselves (a sky,
    /// a wall, a dark foreground, a studio ground), and those rarely are even: of the 179
    /// bordered rows of the holdout and hard sets, 30 are, the hard set's 21 copies with a 12%
    /// white border (0.096–0.097 at both ends), one scene's 8 (a horse on white) and one crop of
    /// a night sky. A logo or a caption over an edge of such a photo leaves no plain part there,
    /// and must not make its copy the keeper.
    static func hasAddedBorders(_ photo: GroupingPhoto) -> Bool {
        guard let box = photo.contentBox else { return false }
        let top = box.y, bottom = 1 - box.y - box.height, left = box.x, right = 1 - box.x - box.width
        return (top > 0 && abs(top - bottom) <= evenBorders) || (left > 0 && abs(left - right) <= evenBorders)
    }

    /// How much two borders of an axis may differ (a share of the side) and still be one added
    /// border: a few rows of JPEG ringing along a border's edge.
    static let evenBorders = 0.01

    /// How much larger than the picture without borders a bordered copy's picture may measure:
    /// `ContentBox` ends a border at the first row that is not plain, and a JPEG's ringing
    /// along the border's edge can leave a row or two of it with the picture.
    static let pictureSlack = 0.03

    /// Whether `a` is the better keeper than `b`, and the step that said so.
    func compare(_ a: GroupingPhoto, _ aStanding: Standing, _ b: GroupingPhoto, _ bStanding: Standing) -> (firstIsBetter: Bool, reason: KeeperReason) {
        if a.isReference != b.isReference { return (a.isReference, .reference) }
        if aStanding.upscaled != bStanding.upscaled { return (!aStanding.upscaled, .notUpscaled) }
        for rule in rules {
            switch rule {
            case .original:
                if a.isCameraOriginal != b.isCameraOriginal { return (a.isCameraOriginal, .original) }
            case .pixels:
                if aStanding.bordered != bStanding.bordered { return (!aStanding.bordered, .notBordered) }
                let pixelsA = a.width * a.height, pixelsB = b.width * b.height
                if pixelsA != pixelsB { return (pixelsA > pixelsB, .pixels) }
            case .earliest:
                switch (a.captureTime, b.captureTime) {
                case let (ta?, tb?) where ta != tb: return (ta < tb, .earliest)
                case (.some, nil): return (true, .earliest)
                case (nil, .some): return (false, .earliest)
                default: break
                }
            case .largest:
                if a.fileSize != b.fileSize { return (a.fileSize > b.fileSize, .largest) }
            case .oldest:
                if a.modified != b.modified { return (a.modified < b.modified, .oldest) }
            }
        }
        // An original rarely has the longest name ("IMG_0042.jpg", "IMG_0042 copy.jpg").
        if a.path.utf8.count != b.path.utf8.count { return (a.path.utf8.count < b.path.utf8.count, .path) }
        return (a.path < b.path, .path)
    }
}

struct KeeperPolicyError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
