/// RFC 6455 framing, client side: frames we send are masked; frames the
/// daemon sends are not, and are parsed in place without copying.
enum WebSocketFrame {
    static let text: UInt8 = 0x1
    static let close: UInt8 = 0x8
    static let ping: UInt8 = 0x9
    static let pong: UInt8 = 0xA

    /// Appends one final, masked frame carrying `payload`.
    static func append(opcode: UInt8, payload: UnsafeRawBufferPointer, mask: UInt32, to out: inout [UInt8]) {
        let n = payload.count
        out.append(0x80 | opcode)
        if n < 126 {
            out.append(0x80 | UInt8(n))
        } else if n < 65536 {
            out.append(0x80 | 126)
            out.append(UInt8(n >> 8))
            out.append(UInt8(n & 0xFF))
        } else {
            out.append(0x80 | 127)
            for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8((n >> shift) & 0xFF)) }
        }
        let m: [UInt8] = [UInt8(mask >> 24), UInt8((mask >> 16) & 0xFF), UInt8((mask >> 8) & 0xFF), UInt8(mask & 0xFF)]
        out.append(contentsOf: m)
        for i in 0..<n { out.append(payload[i] ^ m[i & 3]) }
    }

    static func append(opcode: UInt8, payload: [UInt8], mask: UInt32, to out: inout [UInt8]) {
        payload.withUnsafeBytes { append(opcode: opcode, payload: $0, mask: mask, to: &out) }
    }

    /// A frame header read from the daemon.
    struct Header {
        var fin: Bool
        var opcode: UInt8
        var headerLength: Int
        var payloadLength: Int
    }

    /// The header at `p`, or nil when fewer than a whole header's bytes are there.
    @inline(__always)
    static func header(_ p: UnsafePointer<UInt8>, _ available: Int) -> Header? {
        guard available >= 2 else { return nil }
        let b0 = p[0], b1 = p[1]
        var len = Int(b1 & 0x7F)
        var h = 2
        if len == 126 {
            guard available >= 4 else { return nil }
            len = Int(p[2]) << 8 | Int(p[3])
            h = 4
        } else if len == 127 {
            guard available >= 10 else { return nil }
            len = 0
            for i in 2..<10 { len = len << 8 | Int(p[i]) }
            h = 10
        }
        if b1 & 0x80 != 0 { h += 4 }  // a masked server frame is a protocol error; skip the key
        return Header(fin: b0 & 0x80 != 0, opcode: b0 & 0x0F, headerLength: h, payloadLength: len)
    }
}
