/// The HTTP API's JSON bodies (PROTOCOL.md, "HTTP on the same port"), one encoder each,
/// so the handlers build no JSON by hand and every shape has a test. Compact,
/// members in the order shown, no trailing newline.
public enum HTTPBody {
    /// A board's name and position, as `GET /api/boards` lists them.
    public struct Listing: Sendable, Equatable {
        public var board: String
        public var epoch: String
        public var rev: Int

        public init(board: String, epoch: String, rev: Int) {
            self.board = board
            self.epoch = epoch
            self.rev = rev
        }
    }

    /// `GET /healthz`: `{"status":"ok","writable":…,"boards":…,"connections":…}`.
    public static func health(writable: Bool, boards: Int, connections: Int) -> [UInt8] {
        JSON.object(JSONObject([
            ("status", .string("ok")), ("writable", .bool(writable)),
            ("boards", .int(boards)), ("connections", .int(connections)),
        ])).encoded()
    }

    /// `GET /readyz`: `{"ready":…}`.
    public static func ready(_ ready: Bool) -> [UInt8] {
        JSON.object(JSONObject([("ready", .bool(ready))])).encoded()
    }

    /// `GET /api/boards`: `{"boards":[{"board":…,"epoch":…,"rev":…},…]}`, in the order given.
    public static func boardList(_ boards: [Listing]) -> [UInt8] {
        let list = boards.map { b in
            JSON.object(JSONObject([("board", .string(b.board)), ("epoch", .string(b.epoch)), ("rev", .int(b.rev))]))
        }
        return JSON.object(JSONObject([("boards", .array(list))])).encoded()
    }

    /// `GET /api/boards/NAME`: the position and the whole document, encoded
    /// straight into the body (boards can be large).
    public static func board(_ listing: Listing, state: Board) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(64 + listing.board.utf8.count + listing.epoch.utf8.count)
        JSONWriter.appendRaw("{\"board\":", to: &out)
        JSONWriter.appendString(listing.board, to: &out)
        JSONWriter.appendRaw(",\"epoch\":", to: &out)
        JSONWriter.appendString(listing.epoch, to: &out)
        JSONWriter.appendRaw(",\"rev\":", to: &out)
        JSONWriter.appendInt(listing.rev, to: &out)
        JSONWriter.appendRaw(",\"state\":", to: &out)
        state.encode(into: &out)
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// `PUT /api/boards/NAME` once committed: `{"board":…,"epoch":…,"rev":…}`.
    public static func position(_ listing: Listing) -> [UInt8] {
        JSON.object(JSONObject([
            ("board", .string(listing.board)), ("epoch", .string(listing.epoch)), ("rev", .int(listing.rev)),
        ])).encoded()
    }

    /// `POST /api/boards/NAME/actions` once committed: `{"rev":…}`.
    public static func rev(_ rev: Int, duplicate: Bool = false) -> [UInt8] {
        var out = Array("{\"rev\":".utf8)
        JSONWriter.appendInt(rev, to: &out)
        if duplicate { out += Array(",\"duplicate\":true".utf8) }
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// Every refusal: `{"code":…,"message":…}`, the contract's error body.
    public static func error(_ e: WireError) -> [UInt8] { ErrorBody.encode(e) }
}
