import CLibWebSockets

/// One encoded message, stored once with LWS_PRE bytes of headroom in front
/// (lws writes the WebSocket header there) and shared by every connection
/// queue it is put on: a diff is encoded once, whatever the audience.
///
/// Service thread only: lws writes the frame header into the headroom on
/// every send, which is safe because all sends happen on that one thread.
public final class OutFrame {
    let storage: UnsafeMutableRawPointer
    public let count: Int
    static let headroom = fs_lws_pre()

    public init(_ bytes: [UInt8]) {
        count = bytes.count
        storage = UnsafeMutableRawPointer.allocate(byteCount: Self.headroom + max(count, 1), alignment: 16)
        bytes.withUnsafeBytes { src in
            if let base = src.baseAddress { (storage + Self.headroom).copyMemory(from: base, byteCount: count) }
        }
    }

    deinit { storage.deallocate() }

    /// The payload, just after the headroom.
    var payload: UnsafeMutablePointer<UInt8> {
        (storage + Self.headroom).assumingMemoryBound(to: UInt8.self)
    }

    public var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: storage + Self.headroom, count: count) }
}
