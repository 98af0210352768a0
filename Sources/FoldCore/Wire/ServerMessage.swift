/// Encoders for daemon-to-client messages: one compact JSON object each, no
/// trailing newline, written byte by byte (they are on the hot path).
/// Payloads that are already encoded (`state`, `ops`) are spliced in as-is.
public enum ServerMessage {
    public static let protocolVersion = 1

    public static func hello(server: String, session: String) -> [UInt8] {
        var out = start(capacity: 64 + server.utf8.count + session.utf8.count)
        JSONWriter.appendRaw("{\"type\":\"hello\",\"protocol\":", to: &out)
        JSONWriter.appendInt(protocolVersion, to: &out)
        appendField("server", server, to: &out)
        appendField("session", session, to: &out)
        out.append(UInt8(ascii: "}"))
        return out
    }

    public static func snapshot(board: String, epoch: String, rev: Int, state: [UInt8]) -> [UInt8] {
        var out = start(capacity: 80 + board.utf8.count + epoch.utf8.count + state.count)
        JSONWriter.appendRaw("{\"type\":\"snapshot\"", to: &out)
        appendPosition(board: board, epoch: epoch, rev: rev, to: &out)
        JSONWriter.appendRaw(",\"state\":", to: &out)
        out.append(contentsOf: state)
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// `by` names who made the change, when known.
    public static func patch(board: String, epoch: String, rev: Int, ops: [UInt8], by: String?) -> [UInt8] {
        var out = start(capacity: 96 + board.utf8.count + epoch.utf8.count + ops.count + (by?.utf8.count ?? 0))
        JSONWriter.appendRaw("{\"type\":\"patch\"", to: &out)
        appendPosition(board: board, epoch: epoch, rev: rev, to: &out)
        JSONWriter.appendRaw(",\"ops\":", to: &out)
        out.append(contentsOf: ops)
        if let by { appendField("by", by, to: &out) }
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// `id` is written as null when the action carried none.
    /// `duplicate`: the answer to a repeat of an accepted key, the first's rev.
    public static func ack(id: String?, board: String, rev: Int, duplicate: Bool = false) -> [UInt8] {
        var out = start(capacity: 80 + (id?.utf8.count ?? 4) + board.utf8.count)
        JSONWriter.appendRaw("{\"type\":\"ack\",\"id\":", to: &out)
        if let id { JSONWriter.appendString(id, to: &out) } else { JSONWriter.appendRaw("null", to: &out) }
        appendField("board", board, to: &out)
        JSONWriter.appendRaw(",\"rev\":", to: &out)
        JSONWriter.appendInt(rev, to: &out)
        if duplicate { JSONWriter.appendRaw(",\"duplicate\":true", to: &out) }
        out.append(UInt8(ascii: "}"))
        return out
    }

    public static func error(_ e: WireError) -> [UInt8] {
        var out = start(capacity: 64 + e.message.utf8.count + (e.id?.utf8.count ?? 0) + (e.board?.utf8.count ?? 0))
        JSONWriter.appendRaw("{\"type\":\"error\"", to: &out)
        appendField("code", e.code.rawValue, to: &out)
        appendField("message", e.message, to: &out)
        if let id = e.id { appendField("id", id, to: &out) }
        if let board = e.board { appendField("board", board, to: &out) }
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// `following` (an extension): how many of the viewers follow the board
    /// rather than browse on their own.
    public static func presence(board: String, viewers: Int, following: Int) -> [UInt8] {
        var out = start(capacity: 80 + board.utf8.count)
        JSONWriter.appendRaw("{\"type\":\"presence\"", to: &out)
        appendField("board", board, to: &out)
        JSONWriter.appendRaw(",\"viewers\":", to: &out)
        JSONWriter.appendInt(viewers, to: &out)
        JSONWriter.appendRaw(",\"following\":", to: &out)
        JSONWriter.appendInt(following, to: &out)
        out.append(UInt8(ascii: "}"))
        return out
    }

    private static func start(capacity: Int) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(capacity)
        return out
    }

    /// `,"name":"value"`.
    private static func appendField(_ name: StaticString, _ value: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: ","))
        out.append(UInt8(ascii: "\""))
        JSONWriter.appendRaw(name, to: &out)
        JSONWriter.appendRaw("\":", to: &out)
        JSONWriter.appendString(value, to: &out)
    }

    /// `,"board":…,"epoch":…,"rev":…`.
    private static func appendPosition(board: String, epoch: String, rev: Int, to out: inout [UInt8]) {
        appendField("board", board, to: &out)
        appendField("epoch", epoch, to: &out)
        JSONWriter.appendRaw(",\"rev\":", to: &out)
        JSONWriter.appendInt(rev, to: &out)
    }
}
