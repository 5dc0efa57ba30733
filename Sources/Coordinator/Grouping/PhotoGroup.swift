/// A set of photos a person would call the same picture, with the one to keep.
struct PhotoGroup: Sendable, Equatable {
    enum Kind: String, Sendable {
        /// Every member has the same bytes.
        case exact
        /// Members are the same picture, edited (resized, re-encoded, toned, cropped, overlaid).
        case near
        /// Members are different shots of one moment (bursts, brackets, a subject that moved):
        /// each is kept; never counted as duplicates.
        case similar
    }

    struct Member: Sendable, Equatable {
        var photoID: Int64
        /// Hamming distance of the member's pHash to the keeper's (0 for identical bytes).
        var distance: Int
        var relation: MemberRelation = .editedCopy
    }

    var kind: Kind
    var keeper: Int64
    var members: [Member]
    /// The step of the keeper chain that chose the keeper (`KeeperPolicy`).
    var keeperReason: KeeperReason = .path
}
