import Dispatch
import Glibc

/// Lets go of values on a thread of the lowest priority (nice 19), so that
/// freeing what they hold (a committed batch: every board it saw, every
/// record) costs neither the committer nor the event loop any time: it
/// runs when the core would otherwise be idle. Woken only when it sleeps.
public final class Reaper: Service, Sendable {
    private struct Queue {
        var values: [any Sendable] = []
        var sleeping = false
        var stopping = false
    }
    private let queue = Locked(Queue())
    private let wake = DispatchSemaphore(value: 0)
    private let done = DispatchSemaphore(value: 0)
    public let name: String

    public init(name: String) { self.name = name }

    public func start() {
        SystemThread.start(name: name) { [self] in
            // On Linux a nice value belongs to a thread: `who` 0 is this thread alone.
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 19)
            run()
            done.signal()
        }
    }

    /// Any thread: `value` is released on the reaper's thread (or, once it
    /// stopped, here), unless the caller still holds a copy when the reaper
    /// lets go: it is moved into the queue, not copied.
    public func drop(_ value: consuming any Sendable) {
        var owned: (any Sendable)? = consume value
        let wasSleeping = queue.withLock { q -> Bool? in
            if q.stopping { return nil }
            q.values.append(owned.take()!)
            defer { q.sleeping = false }
            return q.sleeping
        }
        if wasSleeping == true { wake.signal() }
    }

    /// Frees what is queued, then ends the thread; waits for it until `deadline`.
    public func stop(deadline: ContinuousClock.Instant) -> Bool {
        let wasSleeping = queue.withLock { q -> Bool in
            q.stopping = true
            defer { q.sleeping = false }
            return q.sleeping
        }
        if wasSleeping { wake.signal() }
        return done.wait(until: deadline)
    }

    private func run() {
        while true {
            var (values, stopping) = queue.withLock { q -> ([any Sendable], Bool) in
                let taken = q.values
                q.values = []
                if taken.isEmpty && !q.stopping { q.sleeping = true }
                return (taken, q.stopping)
            }
            let idle = values.isEmpty
            values.removeAll()
            if stopping && idle { return }
            if idle { wake.wait() }
        }
    }
}
