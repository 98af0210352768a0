/// Decoding client messages. Unknown members are ignored (forward
/// compatibility); everything listed in PROTOCOL.md is checked for type.
extension ClientMessage {
    public static func decode(_ json: JSON, limits: Limits) -> Result<ClientMessage, WireError> {
        do throws(WireError) {
            return .success(try decodeThrowing(json, limits: limits))
        } catch {
            return .failure(error)
        }
    }

    private static func decodeThrowing(_ json: JSON, limits: Limits) throws(WireError) -> ClientMessage {
        var reader = try FieldReader.start(json)
        let type = try reader.string("type")
        // Address errors to the board as soon as it is known to be a valid name.
        if let name = reader.object["board"]?.stringValue, Names.isValid(name) { reader.board = name }
        switch type {
        case "subscribe":
            let board = try reader.boardName()
            var since: Position? = nil
            if reader.object["since"] != nil {
                let position = FieldReader(object: try reader.object("since"), id: reader.id, board: board)
                let rev = try position.int("rev")
                guard rev >= 0 else { throw reader.fail("field 'rev' must be a non-negative integer") }
                since = Position(epoch: try position.string("epoch"), rev: rev)
            }
            return .subscribe(board: board, since: since)
        case "unsubscribe":
            return .unsubscribe(board: try reader.boardName())
        case "auth":
            return .auth(token: try reader.string("token"))
        case "view":
            return .view(following: try reader.bool("following"))
        case "settle":
            let board = try reader.boardName()
            return .settle(board: board, key: try reader.settledKey(), id: reader.id)
        default:
            guard let name = ActionName(rawValue: type) else {
                throw reader.fail(.unknownType, "unknown message type '\(type)'")
            }
            let board = try reader.boardName()
            return .action(try reader.actionRequest(type: name, board: board, limits: limits))
        }
    }
}

extension ActionRequest {
    /// The body of `POST /api/boards/NAME/actions`: an action without
    /// `board`. A `board` member, if any, is ignored: the URL names the board.
    /// `idempotencyKey`: the `Idempotency-Key` header, the same as a `key`
    /// member (a body that also has one must give the same).
    public static func decode(_ json: JSON, board: String, limits: Limits, idempotencyKey: String? = nil) -> Result<ActionRequest, WireError> {
        do throws(WireError) {
            var reader = try FieldReader.start(json)
            let type = try reader.string("type")
            guard Names.isValid(board) else {
                throw reader.fail("board name must be 1-64 characters of [A-Za-z0-9_.-]")
            }
            reader.board = board
            guard let name = ActionName(rawValue: type) else {
                throw reader.fail(.unknownType, "unknown action type '\(type)'")
            }
            var request = try reader.actionRequest(type: name, board: board, limits: limits)
            if let header = idempotencyKey {
                if let problem = ActionKey.problem(header) { throw reader.fail("header 'Idempotency-Key' \(problem)") }
                let packed = PackedKey(header)
                if let key = request.key, key != packed {
                    throw reader.fail("header 'Idempotency-Key' and field 'key' differ; give one, or the same")
                }
                request.key = packed
            }
            return .success(request)
        } catch {
            return .failure(error)
        }
    }
}

extension FieldReader {
    /// Checks that the message is an object and reads its `id`, so that
    /// every later error can echo it.
    static func start(_ json: JSON) throws(WireError) -> FieldReader {
        guard let object = json.objectValue else {
            throw WireError(.badRequest, "a message must be a JSON object")
        }
        var reader = FieldReader(object: object)
        reader.id = try reader.optionalString("id")
        return reader
    }

    /// `settle`'s `key`: required, and a valid key.
    func settledKey() throws(WireError) -> String {
        let key = try string("key")
        if let problem = ActionKey.problem(key) { throw fail("field 'key' \(problem)") }
        return key
    }

    func actionRequest(type: ActionName, board: String, limits: Limits) throws(WireError) -> ActionRequest {
        let ifRev = try optionalInt("ifRev")
        if let ifRev, ifRev < 0 { throw fail("field 'ifRev' must be a non-negative integer") }
        let key = try optionalString("key")
        if let key, let problem = ActionKey.problem(key) { throw fail("field 'key' \(problem)") }
        let action = try self.action(type: type, limits: limits)
        return ActionRequest(id: id, board: board, ifRev: ifRev, action: action, key: key.map(PackedKey.init))
    }
}
