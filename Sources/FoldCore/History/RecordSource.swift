/// What a change's history record is made of, as the event loop already
/// holds it when it accepts the change: the action, the board before and
/// the change (both shared, not copied). `record()` builds the record once,
/// on the committer's thread, so the loop spends nothing on history.
/// A class: it travels from the loop's pending entry into the sealed batch,
/// and a copy is then one reference, not one per field of two boards.
public final class RecordSource: Sendable {
    public let actor: String
    public let session: String
    public let action: Action
    public let before: Board
    public let change: Change
    /// A revert: the kind of action it undid (the record's `reverts`) and that change's summary.
    public let reverts: String?
    public let reverted: String?

    public init(actor: String, session: String, action: Action, before: Board, change: Change,
                reverts: String? = nil, reverted: String? = nil) {
        self.actor = actor
        self.session = session
        self.action = action
        self.before = before
        self.change = change
        self.reverts = reverts
        self.reverted = reverted
    }

    /// The record as stored: the action and its undo encoded (compact for a
    /// change of fields, `FieldUndo`), the summary in words.
    /// An undo that cannot be computed is left empty (the change then cannot be reverted).
    /// `at`: the commit time the record carries.
    public func record(at: Int = 0) -> ChangeRecord {
        let inverse = FieldUndo.encode(change.ops, before: before)
            ?? (try? before.inverse(of: change.ops)).map(PatchOp.encode) ?? []
        return ChangeRecord(at: at, actor: actor, session: session,
                            action: ChangeSummary.record(action, reverts: reverts), inverse: inverse,
                            summary: ChangeSummary.describe(action, before: before, after: change.board, reverted: reverted))
    }
}
