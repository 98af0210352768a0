import FoldTransport
import FoldHub

/// How other threads (signals, the committer) reach the hub: append under a
/// lock, then wake lws, whose service thread drains. Any thread.
final class Mailbox: Sendable {
    private let events = Locked<[HubEvent]>([])
    let waker: Waker

    init(waker: Waker) { self.waker = waker }

    func post(_ event: HubEvent) {
        events.withLock { $0.append(event) }
        waker.wake()
    }

    func drain() -> [HubEvent] {
        events.withLock { e in
            defer { e.removeAll() }
            return e
        }
    }
}
