extension ServerMessage {
    /// An extension of the contract: the connection presented a valid token.
    /// Clients use it to hide what the token may not do.
    public static func authenticated(name: String, permissions: Permission, boards: String) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(96)
        JSONWriter.appendRaw("{\"type\":\"authenticated\",\"name\":", to: &out)
        JSONWriter.appendString(name, to: &out)
        JSONWriter.appendRaw(",\"permissions\":[", to: &out)
        var first = true
        for (n, p) in Permission.names where permissions.contains(p) {
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            JSONWriter.appendString(n, to: &out)
        }
        JSONWriter.appendRaw("],\"boards\":", to: &out)
        JSONWriter.appendString(boards, to: &out)
        out.append(UInt8(ascii: "}"))
        return out
    }
}
