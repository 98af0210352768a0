import FoldTransport
import Synchronization

/// Something another thread hands to the service thread.
enum AppEvent: Sendable {
    /// A signal arrived (SIGTERM, SIGINT, SIGHUP, SIGWINCH).
    case signal(Int32)
    /// Bytes read from the terminal.
    case input([UInt8])
    /// The terminal reader reached end of input.
    case inputClosed
}

/// The service thread's mailbox. Any thread: `post` appends under the lock
/// and wakes lws (`lws_cancel_service`), the only lws call allowed off the
/// service thread; the service thread drains it in `woken()`.
final class Inbox: Sendable {
    private let events = Mutex<[AppEvent]>([])
    let waker: Waker

    init(waker: Waker) { self.waker = waker }

    /// Any thread.
    func post(_ event: AppEvent) {
        events.withLock { $0.append(event) }
        waker.wake()
    }

    /// Service thread.
    func drain() -> [AppEvent] {
        events.withLock { list in
            defer { list.removeAll() }
            return list
        }
    }
}
