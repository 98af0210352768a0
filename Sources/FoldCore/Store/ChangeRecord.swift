/// Who made a change, when, and how to undo it: what the history keeps
/// beside a change's ops.
public struct ChangeRecord: Sendable, Equatable {
    /// Commit time, UTC milliseconds since 1970 (set by the committer).
    public var at: Int
    /// The token's name, or `anonymous` when no tokens are configured.
    public var actor: String
    /// The WebSocket session (`c12`), or `http`.
    public var session: String
    /// The action as asked, encoded JSON (`type` and arguments; never a secret).
    public var action: [UInt8]
    /// RFC 6902 operations that undo the change, encoded; each starts with
    /// `test`s of what the change set, so an undo over later changes fails.
    /// A change of section fields keeps only `FieldUndo`'s compact form:
    /// read it with `FieldUndo.inverse(stored:forward:)`.
    public var inverse: [UInt8]
    /// The change in words ("toggle s1 → expanded 'Today'").
    public var summary: String

    public init(at: Int = 0, actor: String, session: String, action: [UInt8], inverse: [UInt8], summary: String) {
        self.at = at
        self.actor = actor
        self.session = session
        self.action = action
        self.inverse = inverse
        self.summary = summary
    }
}

/// Which part of a board's history to read. Whatever the anchor, entries
/// come oldest first.
public struct HistoryQuery: Sendable, Equatable {
    public enum Anchor: Sendable, Equatable {
        /// The newest `limit` entries.
        case latest
        /// Entries with `rev > since`, from the oldest.
        case since(Int)
        /// The newest `limit` entries with `rev < before` (paging backwards).
        case before(Int)
    }

    public var anchor: Anchor
    public var limit: Int

    public init(_ anchor: Anchor, limit: Int) {
        self.anchor = anchor
        self.limit = limit
    }
}
