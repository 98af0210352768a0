/// How another thread wakes an event loop's thread: the loop's owner
/// attaches the one call it allows from other threads (for libwebsockets,
/// `lws_cancel_service`); `wake` makes it, under a mutex, so nobody wakes a
/// loop that is being torn down.
public final class Waker: Sendable {
    private let call = Locked<(@Sendable () -> Void)?>(nil)

    public init() {}

    /// Any thread. Nothing happens while no loop is attached.
    public func wake() {
        call.withLock { $0?() }
    }

    /// The loop's thread, once its loop exists.
    public func attach(_ wake: @escaping @Sendable () -> Void) { call.withLock { $0 = wake } }
    /// The loop's thread, before it tears the loop down.
    public func detach() { call.withLock { $0 = nil } }
}
