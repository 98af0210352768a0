/// The header of a server-to-client frame (RFC 6455 §5.2): FIN set, opcode
/// text, no mask, the payload length in the shortest form.
enum WebSocketHeader {
    /// The header's length for a payload of `n` bytes.
    @inline(__always)
    static func length(_ n: Int) -> Int { n < 126 ? 2 : (n < 65536 ? 4 : 10) }

    /// Writes the header for a text payload of `n` bytes at `p`; returns its length (2, 4 or 10).
    @inline(__always)
    static func write(textLength n: Int, to p: UnsafeMutablePointer<UInt8>) -> Int {
        p[0] = 0x81
        if n < 126 {
            p[1] = UInt8(n)
            return 2
        }
        if n < 65536 {
            p[1] = 126
            p[2] = UInt8(truncatingIfNeeded: n >> 8)
            p[3] = UInt8(truncatingIfNeeded: n)
            return 4
        }
        p[1] = 127
        for i in 0..<8 { p[2 + i] = UInt8(truncatingIfNeeded: n >> (56 - 8 * i)) }
        return 10
    }
}
