extension ServerMessage {
    /// An extension of the contract: the board was deleted. Subscribers stay
    /// subscribed to the name and get a `snapshot` (with a new epoch) if it
    /// is created again.
    public static func deleted(board: String) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(40 + board.utf8.count)
        JSONWriter.appendRaw("{\"type\":\"deleted\",\"board\":", to: &out)
        JSONWriter.appendString(board, to: &out)
        out.append(UInt8(ascii: "}"))
        return out
    }
}
