import FoldCore
import Testing
@testable import FoldTransport

/// Close codes as lws and the wire carry them.
@Suite struct CloseCodeTests {
    @Test func aClosePayloadStartsWithItsCodeBigEndian() {
        let payload: [UInt8] = [0x03, 0xF0, 0x62, 0x79, 0x65]  // 1008 "bye"
        #expect(payload.withUnsafeBytes { CloseCode(closePayload: $0) } == .policyViolation)
        #expect([UInt8(0x03)].withUnsafeBytes { CloseCode(closePayload: $0) } == nil, "no code in one byte")
    }

    @Test func theLWSStatusIsTheSameNumber() {
        #expect(CloseCode.messageTooBig.lws.rawValue == 1009)
        #expect(CloseCode(rawValue: 4001).lws.rawValue == 4001)
    }
}
