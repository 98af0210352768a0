import FoldCore

/// One read of a board's history over the HTTP API beside the WebSocket
/// (`GET /api/boards/NAME/history`, docs/PROTOCOL.md "History"): the
/// protocol has no message for it. Pure: it makes the URL and decodes the
/// answer's bytes; each shell does the GET through its transport, with the
/// session's token as `Authorization: Bearer` (`SessionMachine.bearer`).
/// The JavaScript and Python libraries' `history()` build the same URL and
/// resolve with the same page.
public struct HistoryRequest: Sendable, Equatable {
    public let board: String
    /// The entries after this rev, oldest first.
    public let since: Int?
    /// The `limit` entries just before this rev (page backwards with the first rev you got).
    public let before: Int?
    /// 1...1000 (the daemon's default: 100).
    public let limit: Int?

    /// Every value is sent as given: the daemon judges them (`since` with
    /// `before`, or a `limit` out of range, is its `bad_request`).
    public init(board: String, since: Int? = nil, before: Int? = nil, limit: Int? = nil) {
        self.board = board
        self.since = since
        self.before = before
        self.limit = limit
    }

    /// The path and query, from the API's base: `/api/boards/NAME/history?since=R&before=R&limit=N`
    /// (only the parameters given, in that order; the name percent-encoded).
    public var path: String {
        var query: [String] = []
        if let since { query.append("since=\(since)") }
        if let before { query.append("before=\(before)") }
        if let limit { query.append("limit=\(limit)") }
        return "/api/boards/\(Self.percentEncoded(board))/history" + (query.isEmpty ? "" : "?" + query.joined(separator: "&"))
    }

    /// The whole URL for a session connected to `socketURL`
    /// (`ws://HOST:PORT/ws`): the API sits beside the socket, behind a
    /// proxy's path prefix too (`wss://host/foldsync/ws` is asked at
    /// `https://host/foldsync/api/...`). Nil when `socketURL` is not ws(s) or http(s).
    public func url(besideSocket socketURL: String) -> String? {
        Self.apiBase(socketURL).map { $0 + path }
    }

    /// `http(s)://HOST[:PORT]/PREFIX` for `ws(s)://HOST[:PORT]/PREFIX/ws`:
    /// the query and fragment dropped, then a final `/ws` (or `/ws/`), then a final `/`.
    public static func apiBase(_ socketURL: String) -> String? {
        guard let sep = socketURL.firstRange(of: "://") else { return nil }
        let scheme: String
        switch socketURL[..<sep.lowerBound].lowercased() {
        case "ws", "http": scheme = "http"
        case "wss", "https": scheme = "https"
        default: return nil
        }
        var rest = socketURL[sep.upperBound...]
        if let cut = rest.firstIndex(where: { $0 == "?" || $0 == "#" }) { rest = rest[..<cut] }
        guard !rest.isEmpty, rest.first != "/" else { return nil }
        var s = String(rest)
        if s.hasSuffix("/ws/") { s.removeLast(4) } else if s.hasSuffix("/ws") { s.removeLast(3) }
        if s.hasSuffix("/") { s.removeLast() }
        return scheme + "://" + s
    }

    /// The request's headers: the bearer token, when there is one, and what is accepted.
    public static func headers(token: String?) -> [(name: String, value: String)] {
        var h: [(name: String, value: String)] = [("Accept", "application/json")]
        if let token { h.append(("Authorization", "Bearer \(token)")) }
        return h
    }

    /// The answer: its page on 200; else the daemon's `{code, message}`
    /// (`bad_request`, `not_found`, `forbidden`, `unavailable`, ...) as a
    /// `SyncError`, `internal` for a body that is neither.
    public func decode(status: Int, body: [UInt8]) throws(SyncError) -> HistoryPage {
        let json = try? JSONParser.parse(body, maxDepth: 512)
        guard status == 200 else {
            if let code = json?["code"]?.stringValue {
                throw SyncError(code: code, message: json?["message"]?.stringValue ?? "HTTP \(status)")
            }
            throw SyncError(code: "internal", message: "GET \(path): HTTP \(status)")
        }
        guard let json else { throw SyncError(code: "internal", message: "GET \(path): the answer is not JSON") }
        return try HistoryPage(json)
    }

    /// RFC 3986's unreserved characters stay, every other byte is `%XX`.
    static func percentEncoded(_ s: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                 UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.append(b)
            default:
                out += [UInt8(ascii: "%"), hex[Int(b >> 4)], hex[Int(b & 15)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}

/// One page of a board's history: `{board, epoch, rev, more, entries}`,
/// entries oldest first.
public struct HistoryPage: Sendable, Equatable {
    public let board: String
    public let epoch: String
    /// The board's rev when the page was read.
    public let rev: Int
    /// The page left some entries out (ask again with `since` or `before`).
    public let more: Bool
    public let entries: [HistoryEntry]

    public init(board: String, epoch: String, rev: Int, more: Bool, entries: [HistoryEntry]) {
        self.board = board
        self.epoch = epoch
        self.rev = rev
        self.more = more
        self.entries = entries
    }

    /// From the answer's JSON; `internal` when a member is missing or of the wrong kind.
    public init(_ json: JSON) throws(SyncError) {
        guard let board = json["board"]?.stringValue, let epoch = json["epoch"]?.stringValue,
              let rev = json["rev"]?.intValue, let more = json["more"]?.boolValue,
              let list = json["entries"]?.arrayValue else {
            throw SyncError(code: "internal", message: "a history page needs board, epoch, rev, more and entries")
        }
        var entries: [HistoryEntry] = []
        entries.reserveCapacity(list.count)
        for (i, e) in list.enumerated() { entries.append(try HistoryEntry(e, at: i)) }
        self.init(board: board, epoch: epoch, rev: rev, more: more, entries: entries)
    }
}

/// One committed change as the daemon recorded it. A change kept from
/// before the daemon recorded history has only `rev` and `ops` (the other
/// members are nil) and cannot be reverted.
public struct HistoryEntry: Sendable, Equatable {
    public let rev: Int
    /// The commit time: UTC milliseconds since 1970.
    public let at: Int?
    /// The token's name (`anonymous` when the daemon has no tokens).
    public let actor: String?
    /// `c12` for a WebSocket connection, `http` for the HTTP API.
    public let session: String?
    /// The change in words: `toggle s1 → expanded 'Today'`.
    public let summary: String?
    /// The action as asked: `type` and its fields (never a token; for
    /// `replace` only the number of sections).
    public let action: JSON?
    /// The change's patch, and the ops that undo it.
    public let ops: [PatchOp]
    public let inverse: [PatchOp]?

    public init(rev: Int, at: Int? = nil, actor: String? = nil, session: String? = nil, summary: String? = nil,
                action: JSON? = nil, ops: [PatchOp], inverse: [PatchOp]? = nil) {
        self.rev = rev
        self.at = at
        self.actor = actor
        self.session = session
        self.summary = summary
        self.action = action
        self.ops = ops
        self.inverse = inverse
    }

    /// The action's `type` (`toggle`, `revert`, ...).
    public var type: String? { action?["type"]?.stringValue }

    init(_ json: JSON, at i: Int) throws(SyncError) {
        func bad(_ what: String) -> SyncError { SyncError(code: "internal", message: "history entry \(i): \(what)") }
        func patch(_ key: String) throws(SyncError) -> [PatchOp]? {
            guard let value = json[key], value != .null else { return nil }
            do { return try JSONPatch.decode(value) } catch { throw bad("'\(key)': \(error.message)") }
        }
        guard json.objectValue != nil else { throw bad("not an object") }
        guard let rev = json["rev"]?.intValue else { throw bad("'rev' must be an integer") }
        guard let ops = try patch("ops") else { throw bad("'ops' is missing") }
        func optional<T>(_ key: String, _ read: (JSON) -> T?) throws(SyncError) -> T? {
            guard let value = json[key], value != .null else { return nil }
            guard let v = read(value) else { throw bad("'\(key)' is of the wrong kind") }
            return v
        }
        let action = json["action"].flatMap { $0 == .null ? nil : $0 }
        if let action, action.objectValue == nil { throw bad("'action' must be an object") }
        self.init(rev: rev, at: try optional("at") { $0.intValue }, actor: try optional("actor") { $0.stringValue },
                  session: try optional("session") { $0.stringValue }, summary: try optional("summary") { $0.stringValue },
                  action: action, ops: ops, inverse: try patch("inverse"))
    }
}
