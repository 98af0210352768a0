import FoldCore

/// A daemon-to-client message, decoded. Fields a client does not need are
/// dropped; unknown types are kept as `.other` (the protocol may add some).
public enum ServerEvent: Sendable, Equatable {
    case hello(session: String)
    case snapshot(board: String, position: Position, state: JSON)
    case patch(board: String, position: Position, ops: JSON, by: String?)
    case ack(id: String?, board: String?, rev: Int?)
    case error(code: String, message: String, id: String?, board: String?)
    /// `following` is nil from a daemon that does not send it (counts everyone).
    case presence(board: String, viewers: Int, following: Int?)
    case deleted(board: String)
    /// The connection's JWT expires in `seconds`: send a fresh one with `auth` (an extension).
    case authExpiring(seconds: Int)
    case other(type: String)

    /// Nil when the text is not a JSON object with a string `type`, or a
    /// known type lacks a field it needs.
    public static func decode(_ bytes: [UInt8]) -> ServerEvent? {
        guard let json = try? JSONParser.parse(bytes, maxDepth: 128) else { return nil }
        return decode(json)
    }

    public static func decode(_ json: JSON) -> ServerEvent? {
        guard let type = json["type"]?.stringValue else { return nil }
        let board = json["board"]?.stringValue
        func position() -> Position? {
            guard let epoch = json["epoch"]?.stringValue, let rev = json["rev"]?.intValue else { return nil }
            return Position(epoch: epoch, rev: rev)
        }
        switch type {
        case "hello":
            return .hello(session: json["session"]?.stringValue ?? "")
        case "snapshot":
            guard let board, let p = position(), let state = json["state"] else { return nil }
            return .snapshot(board: board, position: p, state: state)
        case "patch":
            guard let board, let p = position(), let ops = json["ops"] else { return nil }
            return .patch(board: board, position: p, ops: ops, by: json["by"]?.stringValue)
        case "ack":
            return .ack(id: json["id"]?.stringValue, board: board, rev: json["rev"]?.intValue)
        case "error":
            return .error(code: json["code"]?.stringValue ?? "internal",
                          message: json["message"]?.stringValue ?? "", id: json["id"]?.stringValue, board: board)
        case "presence":
            guard let board, let viewers = json["viewers"]?.intValue else { return nil }
            return .presence(board: board, viewers: viewers, following: json["following"]?.intValue)
        case "deleted":
            guard let board else { return nil }
            return .deleted(board: board)
        case "authExpiring":
            return .authExpiring(seconds: json["in"]?.intValue ?? 0)
        default:
            return .other(type: type)
        }
    }

    /// The board a message is about, if any.
    public var board: String? {
        switch self {
        case .snapshot(let b, _, _), .patch(let b, _, _, _), .presence(let b, _, _), .deleted(let b): return b
        case .ack(_, let b, _), .error(_, _, _, let b): return b
        case .hello, .other, .authExpiring: return nil
        }
    }
}
