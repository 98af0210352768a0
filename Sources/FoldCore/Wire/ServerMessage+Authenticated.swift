extension ServerMessage {
    /// An extension of the contract: the connection proved a token or a
    /// JWT. Clients use it to hide what it may not do. `permissions` and
    /// `boards` are the static token's form (for a JWT: the union, and the
    /// one glob or `*`); a JWT adds `grants` (glob to permissions, exactly
    /// as its claim says) and `expires` (its `exp`, seconds since the epoch).
    public static func authenticated(_ who: Identity) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(128)
        JSONWriter.appendRaw("{\"type\":\"authenticated\",\"name\":", to: &out)
        JSONWriter.appendString(who.name, to: &out)
        JSONWriter.appendRaw(",\"permissions\":", to: &out)
        appendPermissions(who.permissions(on: nil), to: &out)
        JSONWriter.appendRaw(",\"boards\":", to: &out)
        JSONWriter.appendString(who.boardsSummary, to: &out)
        if who.source == .jwt {
            JSONWriter.appendRaw(",\"grants\":{", to: &out)
            for (i, g) in who.grants.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                JSONWriter.appendString(g.glob, to: &out)
                out.append(UInt8(ascii: ":"))
                appendPermissions(g.permissions, to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
        if let exp = who.expires {
            JSONWriter.appendRaw(",\"expires\":", to: &out)
            JSONWriter.appendInt(Int(exp.rounded(.down)), to: &out)
        }
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// An extension: the connection's JWT expires in `inSeconds`; send a new one with `auth`.
    public static func authExpiring(inSeconds: Int) -> [UInt8] {
        Array("{\"type\":\"authExpiring\",\"in\":\(inSeconds)}".utf8)
    }

    static func appendPermissions(_ p: Permission, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "["))
        var first = true
        for (n, bit) in Permission.names where p.contains(bit) {
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            JSONWriter.appendString(n, to: &out)
        }
        out.append(UInt8(ascii: "]"))
    }
}
