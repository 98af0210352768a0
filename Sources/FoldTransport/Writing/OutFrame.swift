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
    /// The payload, just after the headroom (stored: the headroom is a lazy
    /// global, checked on every read).
    let payload: UnsafeMutablePointer<UInt8>
    static let headroom = fs_lws_pre()
    /// Queues holding this frame (`FrameQueue`): the first takes one strong
    /// reference for all of them, the last lets it go. Not atomic, which is
    /// what makes it cheaper than a retain per queue: service thread only.
    private var holders = 0

    public init(_ bytes: [UInt8]) {
        count = bytes.count
        storage = UnsafeMutableRawPointer.allocate(byteCount: Self.headroom + max(count, 1), alignment: 16)
        payload = (storage + Self.headroom).assumingMemoryBound(to: UInt8.self)
        bytes.withUnsafeBytes { src in
            if let base = src.baseAddress { UnsafeMutableRawPointer(payload).copyMemory(from: base, byteCount: count) }
        }
    }

    deinit { storage.deallocate() }

    /// One more queue holds the frame.
    @inline(__always)
    func hold() -> Unmanaged<OutFrame> {
        let u = Unmanaged.passUnretained(self)
        if holders == 0 { _ = u.retain() }
        holders += 1
        return u
    }

    /// A queue let go of the frame; the last one releases it (after the
    /// frame is last touched, hence static).
    @inline(__always)
    static func letGo(_ u: Unmanaged<OutFrame>) {
        let last = u._withUnsafeGuaranteedRef { f -> Bool in
            f.holders -= 1
            return f.holders == 0
        }
        if last { u.release() }
    }

    public var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: payload, count: count) }
}
