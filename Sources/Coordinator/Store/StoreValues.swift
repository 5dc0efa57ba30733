import GRDB

/// Typed column values: states are stored as their names and read back checked, so a typo in
/// SQL or a row from a newer cull fails loudly instead of comparing unequal forever.
extension JobState: DatabaseValueConvertible {}
extension ScanState: DatabaseValueConvertible {}

/// The stored states of a photo in its library (`photos.status`).
enum PhotoStatus: String, Sendable, CaseIterable, DatabaseValueConvertible {
    /// Found by a walk; its job has not stored an outcome yet.
    case pending
    /// Features stored.
    case analysed
    /// Could not be analysed; `error_kind` and `error_message` say why.
    case failed
}
