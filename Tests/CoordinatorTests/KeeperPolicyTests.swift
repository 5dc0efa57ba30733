@testable import Coordinator
import Testing

/// The keeper chain (docs/FEATURES.md, "Keepers") on groups whose members differ in one way
/// at a time, and the reason it gives.
@Suite("Keeper policy")
struct KeeperPolicyTests {
    func member(_ path: String, pixels: (Int, Int) = (1600, 1200), size: Int64 = 1_000_000, original: Bool = false,
                captured: Double? = nil, modified: Int64 = 0, content: String? = nil) -> GroupingPhoto {
        // Distinct bytes unless `content` names the same for two members.
        GroupingPhoto(id: 0, path: path, sha256: Array((content ?? path).utf8), pHash: 0, dHash: 0,
                      width: pixels.0, height: pixels.1, fileSize: size, modified: modified, sharpness: 1,
                      isCameraOriginal: original, captureTime: captured)
    }

    func keeper(_ members: [GroupingPhoto], _ policy: KeeperPolicy = KeeperPolicy()) -> (path: String, reason: KeeperReason, upscaled: [String]) {
        let members = members.map { photo in
            var photo = photo
            photo.isReference = policy.isReference(photo.path)  // as the store marks them
            return photo
        }
        let choice = policy.choose(members, similar: false)
        return (members[choice.keeper].path, choice.reason, members.indices.filter { choice.upscaled[$0] }.map { members[$0].path })
    }

    @Test("the camera original over its PNG export (bigger file) and its JPEG re-encode (same pixels)")
    func cameraOriginal() {
        let chosen = keeper([member("/l/export.png", size: 5_000_000), member("/l/IMG_1.jpg", original: true, captured: 100),
                             member("/l/IMG_1_q95.jpg", size: 2_000_000)])
        #expect(chosen.path == "/l/IMG_1.jpg")
        #expect(chosen.reason == .original)
    }

    @Test("an upscaled copy never wins, whatever the chain: more pixels than the camera original it came from")
    func upscaled() {
        let members = [member("/l/IMG_1.jpg", original: true, captured: 100), member("/l/big.jpg", pixels: (3200, 2400), size: 9_000_000),
                       member("/l/small.jpg", pixels: (800, 600))]
        let chosen = keeper(members, KeeperPolicy(rules: [.pixels, .largest]))
        #expect(chosen.path == "/l/IMG_1.jpg")
        #expect(chosen.reason == .pixels)  // told from the next best, the small copy
        #expect(chosen.upscaled == ["/l/big.jpg"])
        #expect(keeper(Array(members.prefix(2)), KeeperPolicy(rules: [.pixels, .largest])) == ("/l/IMG_1.jpg", .notUpscaled, ["/l/big.jpg"]))
        // Without a camera original nothing tells an upscale: the most pixels win.
        let exports = [member("/l/a.png"), member("/l/b.jpg", pixels: (3200, 2400))]
        #expect(keeper(exports).path == "/l/b.jpg")
        #expect(keeper(exports).reason == .pixels)
        #expect(keeper(exports).upscaled.isEmpty)
    }

    @Test("a reference folder's photo is kept before everything else; a folder is matched whole, not as a prefix")
    func reference() {
        let policy = KeeperPolicy(referenceFolders: ["/l/archive/"])
        #expect(policy.isReference("/l/archive/x.jpg"))
        #expect(!policy.isReference("/l/archive2/x.jpg"))
        let chosen = keeper([member("/l/IMG_1.jpg", original: true, captured: 100), member("/l/archive/small.png", pixels: (800, 600))], policy)
        #expect(chosen.path == "/l/archive/small.png")
        #expect(chosen.reason == .reference)
    }

    @Test("then most pixels, the earliest capture (a known time first), the largest file, the oldest file, the path")
    func order() {
        #expect(keeper([member("/a", pixels: (10, 10)), member("/b", pixels: (20, 10))]).path == "/b")
        #expect(keeper([member("/a", captured: 200), member("/b", captured: 100)]) .reason == .earliest)
        #expect(keeper([member("/a", captured: 200), member("/b", captured: 100)]).path == "/b")
        #expect(keeper([member("/a"), member("/b", captured: 100)]).path == "/b")
        #expect(keeper([member("/a", size: 1), member("/b", size: 2)]).path == "/b")
        let copies = [member("/photos/2019/IMG_1.jpg", modified: 2_000, content: "1"), member("/backup/IMG_1.jpg", modified: 1_000, content: "1")]
        #expect(keeper(copies).path == "/backup/IMG_1.jpg")
        #expect(keeper(copies).reason == .oldest)
        #expect(keeper([member("/x/IMG_1 copy.jpg"), member("/x/IMG_1.jpg")]) == ("/x/IMG_1.jpg", .path, []))
        // The chain's order decides: the largest file first here.
        let reordered = KeeperPolicy(rules: [.largest, .pixels])
        #expect(keeper([member("/a", pixels: (10, 10), size: 9), member("/b", pixels: (20, 10), size: 1)], reordered).path == "/a")
    }

    @Test("the reason compares the keeper with the next best member, not the worst, and not a byte copy of it")
    func reasonAgainstRunnerUp() {
        let withCopy = [member("/l/IMG_1.jpg", original: true, captured: 100, modified: 1, content: "1"),
                        member("/b/IMG_1.jpg", original: true, captured: 100, modified: 2, content: "1"), member("/l/IMG_1.png")]
        #expect(keeper(withCopy) == ("/l/IMG_1.jpg", .original, []))
        let members = [member("/l/small.jpg", pixels: (800, 600), original: true, captured: 100),
                       member("/l/IMG_1.jpg", size: 3_000_000, original: true, captured: 100),
                       member("/l/IMG_1_copy.jpg", size: 2_000_000, original: true, captured: 100)]
        #expect(keeper(members).path == "/l/IMG_1.jpg")
        #expect(keeper(members).reason == .largest)
    }

    @Test("rules parse from names in any case, each once, with a message naming the choices")
    func parsing() throws {
        #expect(try KeeperPolicy.rules(parsing: "Pixels, original") == [.pixels, .original])
        #expect(throws: KeeperPolicyError.self) { try KeeperPolicy.rules(parsing: "pixels,sharpest") }
        #expect(throws: KeeperPolicyError.self) { try KeeperPolicy.rules(parsing: "pixels,pixels") }
        #expect(throws: KeeperPolicyError.self) { try KeeperPolicy.rules(parsing: " , ") }
        do {
            _ = try KeeperPolicy.rules(parsing: "newest")
        } catch {
            #expect(error.description.contains("original, pixels, earliest, largest, oldest"))
        }
    }
}
