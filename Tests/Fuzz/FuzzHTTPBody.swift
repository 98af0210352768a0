/// libFuzzer entry: an HTTP API body, read both ways the API reads bodies:
/// as a board document (PUT) and as an action (POST .../actions).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBody(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let limits = Limits()
    guard let json = try? JSONParser.parse(bytes, maxDepth: limits.maxJSONDepth) else { return 0 }
    if let board = try? Board(json: json, limits: limits) {
        let again = try? Board(json: JSONParser.parse(board.encoded(), maxDepth: 64), limits: limits)
        precondition(again == board, "a stored board does not read back identically")
        if let change = try? Board.initial.applying(.replace(board), limits: limits) {
            precondition((try? JSONPatch.apply(change.ops, to: Board.initial.json)) == board.json, "replace diff is wrong")
        }
    }
    _ = ActionRequest.decode(json, board: "fuzz", limits: limits)
    return 0
}
