@testable import FoldTransport
import Testing

/// The frame headers CorkedWriter writes for plain peers (RFC 6455 §5.2).
@Suite struct WebSocketHeaderTests {
    /// The reference: FIN + text, no mask, then 7-bit, 16-bit or 64-bit length, big-endian.
    static func expected(_ n: Int) -> [UInt8] {
        if n < 126 { return [0x81, UInt8(n)] }
        if n < 65536 { return [0x81, 126, UInt8(n >> 8), UInt8(n & 0xFF)] }
        return [0x81, 127] + (0..<8).map { UInt8((n >> (56 - 8 * $0)) & 0xFF) }
    }

    @Test(arguments: [0, 1, 125, 126, 127, 1_000, 65_535, 65_536, 70_000, 1 << 20, (1 << 32) + 5])
    func headerForLength(_ n: Int) {
        var buffer = [UInt8](repeating: 0xEE, count: 12)
        let used = buffer.withUnsafeMutableBufferPointer { WebSocketHeader.write(textLength: n, to: $0.baseAddress!) }
        #expect(Array(buffer[0..<used]) == Self.expected(n))
        #expect(buffer[used] == 0xEE, "wrote past the header")
    }
}
