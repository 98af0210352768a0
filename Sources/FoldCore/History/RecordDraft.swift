/// A change's history record before it is built: its inputs, all values.
/// The undo, the words and the encoded action cost more than the change
/// itself (≈ 9.5 % of the daemon with 50 writers, measured), so the hub
/// seals the draft and the committer thread builds the record off the
/// event loop, just before it writes it.
public struct RecordDraft: Sendable {
    public var actor: String
    public var session: String
    public var action: Action
    /// The board the change was applied to.
    public var before: Board
    public var change: Change
    /// For a revert: the kind of action it undid (the record's `reverts`).
    public var reverts: String?
    /// For a revert: the summary of the change it undid.
    public var reverted: String?

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

    public func record() -> ChangeRecord {
        ChangeRecord(actor: actor, session: session, action: ChangeSummary.record(action, reverts: reverts),
                     inverse: inverse(),
                     summary: ChangeSummary.describe(action, before: before, after: change.board, reverted: reverted))
    }

    /// The change's undo, encoded; empty if it cannot be computed (it then cannot be reverted).
    func inverse() -> [UInt8] {
        guard let ops = try? before.inverse(of: change.ops) else { return [] }
        return PatchOp.encode(ops)
    }
}
