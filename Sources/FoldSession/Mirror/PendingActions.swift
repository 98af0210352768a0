import FoldCore

/// The actions a client has called on one board and the daemon has not
/// answered yet, and the board they make: what an application shows is the
/// confirmed board (the daemon's, equal to `GET` at its rev) with these
/// applied on top, in the order they were called, by the daemon's own rules
/// (`Board.applying`, default limits). Pure: the owner feeds it the calls,
/// the daemon's patches and answers. Tests/vectors/pending.json pins it, as
/// it pins the JavaScript and Python libraries.
public struct PendingActions: Sendable {
    public struct Entry: Sendable, Equatable {
        public let key: String
        public let action: Action
        public let ifRev: Int?
        /// The rev of the patch that carried it (recognised by its result).
        public fileprivate(set) var landed: Int?
        /// The rev its `ack` gave.
        public fileprivate(set) var acked: Int?

        /// Already part of the confirmed board at `rev`: not applied again.
        func isConfirmed(at rev: Int) -> Bool {
            landed != nil || (acked.map { rev >= $0 } ?? false)
        }
    }

    public private(set) var entries: [Entry] = []

    public init() {}

    public var isEmpty: Bool { entries.isEmpty }
    public var keys: [String] { entries.map(\.key) }

    /// An action called (connected or not): shown from now until answered.
    public mutating func add(key: String, action: Action, ifRev: Int?) {
        entries.append(Entry(key: key, action: action, ifRev: ifRev))
    }

    /// The confirmed board moved from `before` to `after` by the patch at
    /// `rev`. `own`: made by this connection's session, or over HTTP (no
    /// `by`; a stream transport's own action comes that way). The daemon
    /// answers a connection's actions on a board in order and sends the
    /// originator the patch before the ack, so the first unanswered action
    /// is the only candidate; it has landed when its rules applied to
    /// `before` give exactly `after`. Without this a toggle would show
    /// flipped twice between its patch and its ack.
    public mutating func patched(rev: Int, before: JSON, after: JSON, own: Bool) {
        defer { drop(confirmedRev: rev) }
        guard own, let i = entries.firstIndex(where: { $0.landed == nil && $0.acked == nil }) else { return }
        let e = entries[i]
        if let ifRev = e.ifRev, ifRev != rev - 1 { return }
        guard let board = try? Board(trusted: before) else { return }
        let result: JSON
        do throws(FoldError) {
            result = try board.applying(e.action, limits: .defaults)?.board.json ?? before
        } catch {
            return
        }
        if result == after { entries[i].landed = rev }
    }

    /// The action's `ack` (a duplicate's too): it leaves once the confirmed
    /// board has reached `rev`.
    public mutating func acked(key: String, rev: Int, confirmedRev: Int?) {
        guard let i = entries.firstIndex(where: { $0.key == key }) else { return }
        entries[i].acked = rev
        if let confirmedRev { drop(confirmedRev: confirmedRev) }
    }

    /// Refused by the daemon, expired or cancelled in the outbox: taken out
    /// (rolled back); nil when it was not pending.
    @discardableResult
    public mutating func remove(key: String) -> Entry? {
        guard let i = entries.firstIndex(where: { $0.key == key }) else { return nil }
        return entries.remove(at: i)
    }

    /// A resync put the confirmed board at `rev`.
    public mutating func resynced(rev: Int) { drop(confirmedRev: rev) }

    private mutating func drop(confirmedRev rev: Int) {
        entries.removeAll { e in e.acked.map { rev >= $0 } ?? false }
    }

    /// The board to show: `confirmed` itself when nothing is pending. An
    /// action with `ifRev` counts only while the board is at that rev (else
    /// the daemon refuses it); one the rules refuse is skipped, not dropped:
    /// the daemon decides.
    public func shown(confirmed: JSON?, rev: Int?) -> JSON? {
        guard let confirmed, let rev else { return confirmed }
        let live = entries.filter { !$0.isConfirmed(at: rev) && ($0.ifRev == nil || $0.ifRev == rev) }
        guard !live.isEmpty, var board = try? Board(trusted: confirmed) else { return confirmed }
        var changed = false
        for e in live {
            do throws(FoldError) {
                if let change = try board.applying(e.action, limits: .defaults) {
                    board = change.board
                    changed = true
                }
            } catch {
                continue
            }
        }
        return changed ? board.json : confirmed
    }
}
