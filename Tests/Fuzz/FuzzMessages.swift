/// libFuzzer entry: one WebSocket message as a client could send it. It is
/// parsed, decoded, and, when it is an action, applied to two boards; every
/// accepted change's patch must turn the old document into the new one.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMessage(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let limits = Limits()
    guard let json = try? JSONParser.parse(bytes, maxDepth: limits.maxJSONDepth) else { return 0 }
    _ = json.encoded()
    guard case .success(.action(let request)) = ClientMessage.decode(json, limits: limits) else { return 0 }
    var multi = Board.initial
    multi.mode = .multi
    for board in [Board.initial, multi] {
        guard let change = try? board.applying(request.action, limits: limits) else { continue }
        let patched = try? JSONPatch.apply(change.ops, to: board.json)
        precondition(patched == change.board.json, "patch does not reproduce the change")
        let reparsed = try? JSONParser.parse(PatchOp.encode(change.ops), maxDepth: 64)
        precondition(reparsed != nil, "encoded ops do not parse")
    }
    return 0
}
