import FoldSystem
import Dispatch

/// Timers for the service thread that do not depend on the event library.
///
/// Why not lws' own timers (lws_sul): on the libev loop, lws (4.1.6 and 4.3.5) re-arms its
/// single ev_timer with `ev_timer_start`, which does nothing while the timer
/// is already running, so a new timer due before the pending one (a 1 s
/// sweep scheduled while a 30 s ping check is armed) fires late, after the
/// pending one. Instead a small thread sleeps until the earliest deadline and
/// wakes the loop through `lws_cancel_service`, the one call other threads
/// may make; the due timers then run on the service thread.
final class ServiceTimers {
    private struct Entry {
        var deadline: UInt64
        var seq: UInt64
        var body: () -> Void
    }

    /// Service thread only.
    private var entries: [Entry] = []
    private var seq: UInt64 = 0
    private let clock: TimerClock

    /// `clock` runs as a service of its own, started before the loop serves
    /// and stopped after it ends.
    init(clock: TimerClock) {
        self.clock = clock
    }

    /// Service thread.
    func schedule(afterMicroseconds us: Int64, _ body: @escaping () -> Void) {
        seq += 1
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(max(us, 0)) * 1_000
        let e = Entry(deadline: deadline, seq: seq, body: body)
        let i = entries.firstIndex { $0.deadline > deadline } ?? entries.count
        entries.insert(e, at: i)
        if i == 0 { clock.setNext(deadline) }
    }

    /// Runs what is due. Service thread, from the wake-up callback.
    func runDue() {
        let now = DispatchTime.now().uptimeNanoseconds
        var due: [Entry] = []
        while let first = entries.first, first.deadline <= now {
            due.append(entries.removeFirst())
        }
        for e in due { e.body() }
        clock.setNext(entries.first?.deadline)
    }
}

struct TimerState: Sendable {
    var deadline: UInt64?
    var running = true
}

/// The sleeping half of `ServiceTimers`, the `foldsync-timers` thread: it
/// wakes the loop (through `waker`) when the earliest timer is due. Any thread.
public final class TimerClock: Service, Sendable {
    public let name = "foldsync-timers"
    private let next = Locked<TimerState>(TimerState())
    private let changed = DispatchSemaphore(value: 0)
    private let done = DispatchSemaphore(value: 0)
    private let waker: Waker

    /// `waker`: the one the server that uses this clock wakes its loop with.
    public init(waker: Waker) { self.waker = waker }

    public func start() {
        SystemThread.start(name: name) { [self] in
            loop()
            done.signal()
        }
    }

    public func stop(deadline: ContinuousClock.Instant) -> Bool {
        next.withLock { $0.running = false }
        changed.signal()
        return done.wait(until: deadline)
    }

    func setNext(_ deadline: UInt64?) {
        let moved = next.withLock { state -> Bool in
            defer { state.deadline = deadline }
            return state.deadline != deadline
        }
        if moved { changed.signal() }
    }

    private func loop() {
        while true {
            let (deadline, running) = next.withLock { ($0.deadline, $0.running) }
            guard running else { return }
            guard let deadline else {
                changed.wait()
                continue
            }
            if changed.wait(timeout: DispatchTime(uptimeNanoseconds: deadline)) == .timedOut {
                // Wake the loop once; the service thread sets the next deadline.
                next.withLock { if $0.deadline == deadline { $0.deadline = nil } }
                waker.wake()
            }
        }
    }
}
