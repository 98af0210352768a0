import FoldCore

/// Who to answer once an entry is committed (or refused).
enum Reply {
    /// A WebSocket action: `ack` with the action's `id`.
    case socket(connection: UInt64, id: String?, board: String)
    /// `POST .../actions`: `{"rev": R}`.
    case httpRev(exchange: UInt64)
    /// `PUT`: `{"board", "epoch", "rev"}`.
    case httpBoard(exchange: UInt64)
    /// `DELETE`: 204.
    case httpDeleted(exchange: UInt64)
}

/// What an entry does to the store once committed.
enum Mutation {
    /// An accepted change: `rev` is the board's rev after it; `message` the
    /// patch, encoded once for every subscriber and the history.
    case change(board: String, epoch: String, rev: Int, ops: [UInt8], message: [UInt8], after: Board)
    /// A board that did not exist, at rev 0.
    case create(board: String, epoch: String, state: Board)
    case delete(board: String)
}

/// One accepted request waiting for its commit. An entry without a mutation
/// is a no-op's reply (or, on a shared store, a refusal read off the board),
/// queued behind earlier writes so answers keep their order.
///
/// A class: an entry moves through the pending list, the batch in flight
/// and the answers, and a copy of a struct this size retained every field
/// each time (a tenth of the event loop's time under 50 writers).
final class PendingEntry {
    let mutation: Mutation?
    let reply: Reply
    let board: String
    /// The rev the answer carries.
    let rev: Int
    /// The answer is this error, not an ack (an entry without a mutation only).
    let refusal: WireError?
    /// Where the board stood when the answer was judged (an entry without a
    /// mutation only): a shared store confirms it with the batch.
    let judgedAt: PositionCheck?
    /// The action as asked, to apply again on a newer head when a shared
    /// store refuses the batch (another node moved the board first).
    var intent: Intent?
    /// Who, what and how to undo it, for the history (changes only): built into the record by the committer.
    let record: RecordSource?
    /// The action's key, written with it (set from the intent when the
    /// entry is queued; never on a refusal or a duplicate's answer).
    var key: PackedKey?
    var fingerprint: Int64 = 0
    /// `settle` found the key unused: it is written void (rev -1), and the answer is `expired`.
    var void = false
    /// The answer to a repeat of a key: `rev` is the first's, nothing is written.
    let duplicate: Bool
    /// Batches holding this request that a shared store refused because
    /// another node had moved its board first (each time it was applied again).
    var refusals = 0

    init(mutation: Mutation?, reply: Reply, board: String, rev: Int, refusal: WireError? = nil,
         judgedAt: PositionCheck? = nil, intent: Intent? = nil, record: RecordSource? = nil, duplicate: Bool = false) {
        self.mutation = mutation
        self.reply = reply
        self.board = board
        self.rev = rev
        self.refusal = refusal
        self.judgedAt = judgedAt
        self.intent = intent
        self.record = record
        self.duplicate = duplicate
    }

    /// True when committing it writes something: a change, or a key.
    var writes: Bool { mutation != nil || key != nil }
}

/// A write as a client asked for it: what it means does not depend on the rev it was applied at.
enum Intent {
    case action(ActionRequest, by: String?, actor: Author)
    case delete(board: String)
    case settle(board: String, key: String)
}
