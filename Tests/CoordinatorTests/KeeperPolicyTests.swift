@testable import Coordinator
import Analysis
import Shared
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

    @Test("an editor's export that kept the camera's EXIF is no camera original: its Software names an editor, or its ModifyDate is past the capture")
    func editorsExports() {
        let taken = "2024:06:01 10:02:03.45+02:00"
        func original(_ software: String?, _ modified: String?) -> Bool {
            CullStore.isCameraOriginal(format: "jpeg", hasCamera: true, captureTime: taken, software: software, modifyTime: modified)
        }
        #expect(original(nil, nil), "no tags (a row from before them): as before")
        #expect(original("Ver.1.01", "2024:06:01 10:02:03"), "a camera's firmware, DateTime the capture's")
        #expect(original("17.1", "2024:06:01 10:02:58"), "an iPhone's, stamped within the minute")
        #expect(original("HDR+ 1.0.641377693z", "2024:06:01 10:02:04"))
        #expect(!original("Adobe Photoshop Lightroom Classic 13.0 (Windows)", "2024:06:01 10:02:03"), "an editor, whatever the time")
        #expect(!original("GIMP 2.10.34", nil) && !original("darktable 4.6.1", nil) && !original("Capture One 23 Macintosh", nil))
        #expect(!original("Ver.1.01", "2024:06:03 21:14:55"), "saved two days after the shot")
        #expect(original("Ver.1.01", "0000:00:00 00:00:00"), "a ModifyDate that is no date says nothing")
        #expect(!CullStore.isCameraOriginal(format: "png", hasCamera: true, captureTime: taken), "PNG: never, as before")
        // A scan's photos share one memo of the Software values met: the same answers.
        var names = SavedByEditor.Names()
        for software in ["Ver.1.01", "GIMP 2.10.34", "Ver.1.01", "Adobe Photoshop 25.0 (Macintosh)", "GIMP 2.10.34"] {
            #expect(names.isEditor(software) == SavedByEditor.isEditor(software), "\(software)")
        }
        for index in 0..<(SavedByEditor.Names.capacity + 10) { _ = names.isEditor("firmware \(index)") }
        #expect(names.isEditor("GIMP 2.10.34") && !names.isEditor("firmware 9999"), "past its capacity it still answers")
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

    @Test("a copy with even borders added comes after the picture without them at pixels; uneven plain edges, and a smaller copy without borders, change nothing")
    func borderedCopy() {
        func bordered(_ photo: GroupingPhoto, _ box: FeatureWindow) -> GroupingPhoto {
            var photo = photo
            photo.contentBox = box
            return photo
        }
        // The hard set's copy: 1920x1200 with a 12% white border, measured 1920x1488 with the
        // border at 0.097 of the height above and below.
        let mat = bordered(member("/l/IMG_1 framed.jpg", pixels: (1920, 1488), size: 1_500_000), FeatureWindow(x: 0, y: 0.097, width: 1, height: 0.806))
        let original = member("/l/IMG_1.jpg", pixels: (1920, 1200), size: 1_200_000)
        #expect(keeper([mat, original]).path == "/l/IMG_1.jpg")
        #expect(keeper([mat, original]).reason == .notBordered)
        // An original whose own plain part (a dark foreground: 9% at the bottom alone) is found
        // as a border is still the picture the framed copy holds.
        let darkFoot = bordered(original, FeatureWindow(x: 0, y: 0, width: 1, height: 0.91))
        #expect(keeper([mat, darkFoot]).path == "/l/IMG_1.jpg")
        // A photo with a plain sky, and its copy with a logo over the sky: the sky is no added
        // border, so the copy is not kept for lacking it (the larger file decides, as before).
        let sky = bordered(member("/l/IMG_2.jpg", size: 900_000), FeatureWindow(x: 0, y: 0.41, width: 1, height: 0.59))
        let logo = member("/l/IMG_2 logo.jpg", size: 800_000)
        #expect(keeper([sky, logo]) == ("/l/IMG_2.jpg", .largest, []))
        // A large framed original and a small web copy without the frame: the picture inside
        // the frame has more pixels than the copy, so it is the keeper.
        let web = member("/l/IMG_1 web.jpg", pixels: (960, 600), size: 200_000)
        #expect(keeper([mat, web]) == ("/l/IMG_1 framed.jpg", .pixels, []))
        // Nothing without borders: as before. Similar shots are never copies of each other.
        let other = bordered(member("/l/IMG_3.jpg", pixels: (1920, 1200)), FeatureWindow(x: 0, y: 0.097, width: 1, height: 0.806))
        #expect(keeper([mat, other]).path == "/l/IMG_1 framed.jpg")
        #expect(KeeperPolicy().choose([mat, original], similar: true).keeper == 0)
    }

    @Test("every keeper reason is told in words in the listings, not as its bare name")
    func everyReasonExplained() {
        for reason in KeeperReason.allCases {
            var group = Cull_V1_Group()
            group.kind = "near"
            group.keeperReason = reason.rawValue
            var keeper = Cull_V1_GroupMember()
            keeper.keeper = true
            keeper.path = "/l/IMG_1.jpg"
            group.members = [keeper]
            let words = KeeperExplanation.reason(group)
            #expect(!words.isEmpty && words != reason.rawValue, "\(reason.rawValue): \(words)")
        }
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
