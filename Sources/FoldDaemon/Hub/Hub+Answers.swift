import FoldCore
import FoldTransport

extension Hub {
    /// Refuses a request on whichever channel it came.
    func answer(_ reply: Reply, error e: WireError) {
        metrics.refused[e.code.rawValue, default: 0] += 1
        switch reply {
        case .socket(let conn, let id, let board):
            var e = e
            e.id = e.id ?? id
            e.board = e.board ?? board
            sessions[conn]?.connection.send(OutFrame(ServerMessage.error(e)))
        case .httpRev(let x), .httpBoard(let x), .httpDeleted(let x):
            server.respond(x, HTTPReplies.error(e))
        }
    }

    /// Acknowledges a committed request.
    func answer(_ reply: Reply, rev: Int, board: String) {
        switch reply {
        case .socket(let conn, let id, let board):
            sessions[conn]?.connection.send(OutFrame(ServerMessage.ack(id: id, board: board, rev: rev)))
        case .httpRev(let x):
            var out = Array(#"{"rev":"#.utf8)
            JSONWriter.appendInt(rev, to: &out)
            out.append(UInt8(ascii: "}"))
            server.respond(x, HTTPResponse(status: 200, body: out))
        case .httpBoard(let x):
            let epoch = boards[board]?.epoch ?? ""
            server.respond(x, HTTPReplies.json(.object(JSONObject([
                ("board", .string(board)), ("epoch", .string(epoch)), ("rev", .number(String(rev))),
            ]))))
        case .httpDeleted(let x):
            server.respond(x, HTTPResponse(status: 204))
        }
    }
}
