@testable import Coordinator
import Analysis
import Shared
import Testing

/// A camera's RAW and its JPEG of one shot: found by folder and name, kept together by
/// default, one half let go by `--pairs`.
@Suite("RAW + JPEG pairs", .timeLimit(.minutes(5)))
struct RawJPEGPairsTests {
    @Test("pairs are one RAW and one JPEG or HEIF of one folder and name, in any case; anything else pairs nothing")
    func partners() {
        let paths = ["/a/IMG_1.CR2", "/a/img_1.jpg", "/a/IMG_2.NEF", "/b/IMG_2.JPG", "/a/IMG_3.dng", "/a/IMG_3.heic", "/a/IMG_3.jpg",
                     "/a/IMG_4.arw", "/a/IMG_4.png", "/a/IMG_5", "/a.d/IMG_6.raf", "/a.d/IMG_6.JPEG"]
        let partners = RawJPEGPairs.partners(paths)
        #expect(partners == [0: 1, 1: 0, 10: 11, 11: 10])
        #expect(RawJPEGPairs.half(of: "/x/y.ORF") == .raw)
        #expect(RawJPEGPairs.half(of: "/x/y.HIF") == .picture)
        #expect(RawJPEGPairs.half(of: "/x.jpg/y") == nil)
    }

    @Test("grouping calls the half that is not the keeper a raw+jpeg pair; a copy elsewhere stays an edited copy")
    func relation() throws {
        let scene = SyntheticPhoto.make(seed: 44, width: 960, height: 720)
        var raw = try GroupingPhoto.analysed(1, "/a/IMG_0042.DNG", scene)
        raw.fileSize = 20_000_000  // the largest file: the keeper by the default chain
        let photos = [raw, try GroupingPhoto.analysed(2, "/a/IMG_0042.JPG", scene.resized(width: 800, height: 600)),
                      try GroupingPhoto.analysed(3, "/b/IMG_0042.jpg", scene.resized(width: 480, height: 360))]
        let groups = Grouper().groups(of: photos)
        try #require(groups.count == 1)
        let relations = Dictionary(uniqueKeysWithValues: groups[0].members.map { ($0.photoID, $0.relation) })
        #expect(groups[0].keeper == 1)
        #expect(relations == [1: .keeper, 2: .rawJPEGPair, 3: .editedCopy])
    }

    static func group(_ members: [(path: String, keeper: Bool, relation: String, reference: Bool)], kind: String = "near") -> Cull_V1_Group {
        .with { group in
            group.groupID = 7
            group.kind = kind
            group.keeperReason = "largest"
            group.members = members.map { member in
                .with {
                    $0.path = member.path
                    $0.keeper = member.keeper
                    $0.relation = member.relation
                    $0.reference = member.reference
                    $0.fileSize = 1_000
                }
            }
        }
    }

    static let rawKept = group([("/lib/a/IMG_1.CR2", true, "keeper", false), ("/lib/a/IMG_1.JPG", false, "raw+jpeg pair", false),
                                ("/lib/b/IMG_1 copy.jpg", false, "edited copy", false)])

    @Test("keep-both changes nothing and nothing of the pair could go; keep-raw lets the JPEG go; keep-jpeg makes the JPEG the keeper")
    func policies() {
        #expect(PairsPolicy.keepBoth.applied(to: [Self.rawKept]) == [Self.rawKept])
        #expect(GroupsFormatter.summary([Self.rawKept]).hasPrefix("1 duplicate groups, 3 photos, 1 could go"))

        let keepRaw = PairsPolicy.keepRaw.applied(to: [Self.rawKept])[0]
        #expect(keepRaw.members.map(\.keeper) == [true, false, false])
        #expect(keepRaw.members.map(\.relation) == ["keeper", PairsPolicy.otherHalf, "edited copy"])
        #expect(keepRaw.keeperReason == "largest")
        #expect(GroupsFormatter.summary([keepRaw]).hasPrefix("1 duplicate groups, 3 photos, 2 could go"))

        let keepJPEG = PairsPolicy.keepJPEG.applied(to: [Self.rawKept])[0]
        #expect(keepJPEG.members.map(\.keeper) == [false, true, false])
        #expect(keepJPEG.members.map(\.relation) == [PairsPolicy.otherHalf, "keeper", "edited copy"])
        #expect(keepJPEG.keeperReason == "pairs")
        #expect(KeeperExplanation.reason(keepJPEG).hasPrefix("the JPEG of its RAW + JPEG pair"))
        #expect(KeeperExplanation.others(keepJPEG) == "1 edited copy, 1 other half of a RAW + JPEG pair")
    }

    @Test("a half in a reference folder stays, and similar groups are left alone")
    func referenceAndSimilar() {
        let referenced = Self.group([("/lib/a/IMG_1.CR2", true, "keeper", true), ("/lib/a/IMG_1.JPG", false, "raw+jpeg pair", true)])
        #expect(PairsPolicy.keepJPEG.applied(to: [referenced]) == [referenced])
        let similar = Self.group([("/lib/a/IMG_1.CR2", true, "keeper", false), ("/lib/a/IMG_1.JPG", false, "similar shot", false)], kind: "similar")
        #expect(PairsPolicy.keepRaw.applied(to: [similar]) == [similar])
    }

    @Test("cull apply moves the other half --pairs lets go and never the kept half of a pair")
    func movePlan() throws {
        func moved(_ groups: [Cull_V1_Group]) throws -> [String] {
            let reply = Cull_V1_GroupsReply.with { $0.scanID = 1; $0.scanState = "done"; $0.root = "/lib"; $0.groups = groups }
            return try MovePlan(reply, target: "/moved", includeSimilar: false).moves.map(\.from)
        }
        #expect(try moved([Self.rawKept]) == ["/lib/b/IMG_1 copy.jpg"])
        #expect(try moved(PairsPolicy.keepRaw.applied(to: [Self.rawKept])) == ["/lib/a/IMG_1.JPG", "/lib/b/IMG_1 copy.jpg"])
        #expect(try moved(PairsPolicy.keepJPEG.applied(to: [Self.rawKept])) == ["/lib/a/IMG_1.CR2", "/lib/b/IMG_1 copy.jpg"])
    }
}
