import CLibWebSockets
import FoldCore

extension CloseCode {
    /// The same number as lws' enum, for `lws_close_reason`.
    var lws: lws_close_status { lws_close_status(rawValue: UInt32(rawValue)) }

    /// The code at the start of a close frame's payload (big-endian), or nil
    /// when the frame carries none.
    init?(closePayload bytes: UnsafeRawBufferPointer) {
        guard bytes.count >= 2 else { return nil }
        self.init(rawValue: UInt16(bytes[0]) << 8 | UInt16(bytes[1]))
    }
}
