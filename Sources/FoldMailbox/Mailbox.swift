import FoldSystem

/// How other threads (signals, the committer, the terminal reader) reach an
/// lws service thread: `post` appends under a lock and wakes lws
/// (`lws_cancel_service`, the one lws call allowed off the service thread);
/// the service thread drains it when woken. Events come out in posting order.
///
/// The lock is `Locked` (a pthread mutex, which ThreadSanitizer follows), not
/// `Synchronization.Mutex`, for the reason given on `Locked`.
public final class Mailbox<Event: Sendable>: Sendable {
    private let events = Locked<[Event]>([])
    public let waker: Waker

    public init(waker: Waker) { self.waker = waker }

    /// Any thread.
    public func post(_ event: Event) {
        events.withLock { $0.append(event) }
        waker.wake()
    }

    /// Service thread: everything posted since the last drain.
    public func drain() -> [Event] {
        events.withLock { list in
            defer { list.removeAll() }
            return list
        }
    }
}
