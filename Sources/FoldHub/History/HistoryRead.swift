import FoldCore

/// A read of a board's history, done off the event loop by the reader on a
/// connection of its own (it sees what is committed); answered with `HubInput.historyRead`.
public struct HistoryRead: Sendable {
    public var id: UInt64
    public var board: String
    public var query: HistoryQuery
    /// For a revert: only the first entry whole; the later ones as the
    /// skeletons of their ops (`PatchOp.skeleton`), read a page at a time,
    /// so memory stays small however large those changes were.
    public var skeletonsAfterFirst = false

    /// The entries of a page read for a revert, reduced to what it needs.
    public static func skeletons(_ page: [StoredChange]) -> [StoredChange] {
        page.map { c in
            let ops = (try? JSONPatch.decode(JSONParser.parse(c.ops, maxDepth: 512))) ?? []
            return StoredChange(board: c.board, rev: c.rev, ops: PatchOp.encode(ops.map(\.skeleton)))
        }
    }
}
