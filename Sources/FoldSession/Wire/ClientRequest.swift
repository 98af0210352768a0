import FoldCore

/// Encoders for client-to-daemon messages (PROTOCOL.md, "Client to daemon").
public enum ClientRequest {
    public static func subscribe(board: String, since: Position?) -> [UInt8] {
        var o: JSONObject = ["type": .string("subscribe"), "board": .string(board)]
        if let since {
            o["since"] = .object(["epoch": .string(since.epoch), "rev": .int(since.rev)])
        }
        return JSON.object(o).encoded()
    }

    public static func unsubscribe(board: String) -> [UInt8] {
        JSON.object(["type": .string("unsubscribe"), "board": .string(board)]).encoded()
    }

    /// A token presented in band: the first, or a fresh one after `authExpiring`.
    public static func auth(token: String) -> [UInt8] {
        var o = JSONObject()
        o["type"] = .string("auth")
        o["token"] = .string(token)
        return JSON.object(o).encoded()
    }

    /// An extension: whether this connection follows the board or browses.
    public static func view(following: Bool) -> [UInt8] {
        JSON.object(["type": .string("view"), "following": .bool(following)]).encoded()
    }

    /// An action message with its `id`, so the `ack` or `error` can be matched.
    /// `settle`: what became of the action sent with `key` (PROTOCOL.md).
    public static func settle(board: String, key: String, id: String) -> [UInt8] {
        JSON.object(["type": .string("settle"), "board": .string(board), "key": .string(key), "id": .string(id)]).encoded()
    }

    public static func action(_ action: Action, board: String, id: String?, ifRev: Int? = nil, key: String? = nil) -> [UInt8] {
        JSON.object(actionObject(action, board: board, id: id, ifRev: ifRev, key: key)).encoded()
    }

    public static func actionObject(_ action: Action, board: String, id: String?, ifRev: Int? = nil, key: String? = nil) -> JSONObject {
        var o: JSONObject = ["type": .string(action.name), "board": .string(board)]
        if let id { o["id"] = .string(id) }
        if let ifRev { o["ifRev"] = .int(ifRev) }
        if let key { o["key"] = .string(key) }
        action.encodeFields(into: &o)
        return o
    }
}
