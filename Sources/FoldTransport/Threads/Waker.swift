import CLibWebSockets

/// The one lws call other threads may make: `lws_cancel_service`, which
/// makes the service thread run `WebServerDelegate.woken()`.
/// Guarded by a mutex so nobody wakes a context that is being destroyed.
public final class Waker: Sendable {
    private let context = Locked<ContextRef?>(nil)

    public init() {}

    /// Any thread.
    public func wake() {
        context.withLock { ref in
            if let ref { lws_cancel_service(ref.raw) }
        }
    }

    func attach(_ raw: OpaquePointer) { context.withLock { $0 = ContextRef(raw: raw) } }
    func detach() { context.withLock { $0 = nil } }
}

/// An lws context pointer that may cross threads: only `Waker` holds one, and
/// only uses it under its mutex.
struct ContextRef: @unchecked Sendable {
    let raw: OpaquePointer
}
