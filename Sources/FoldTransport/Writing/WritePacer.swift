import Dispatch
import Glibc

/// Decides when a busy connection's queue is written.
///
/// Each write costs the kernel far more than the bytes in it (a send, the
/// reader's wake-up), so under a heavy stream it pays to let messages gather:
/// corked, they leave in one write whether the peer batches or not. A
/// connection counts as hot when more than `hotRate` messages a second were
/// written to it over the last window (50 ms), or more than `warmRate` while
/// the daemon as a whole writes more than `busyMessages` a second: its
/// next write then waits until `linger` after the previous one. Other
/// connections are written at once, so quiet and moderate streams keep their
/// latency (100 subscribers at 200 messages a second are not paced; 1,000
/// are, since their 200,000 messages a second, written one by one, would
/// take the whole core). The measures are message rates, not writes or what
/// the last write carried, so pacing can neither keep itself going nor
/// switch itself off (counted in writes, 1,000 subscribers at 200/s swung
/// between paced and not every 50 ms).
///
/// The gather grows with the number of hot connections, so that together
/// they are written about `hotWrites` times a second: 1,000 hot connections
/// wait 40 ms, not 20, which is what keeps a 1,000-subscriber stream of
/// 1,000 changes a second at 60 % of the core instead of 90 % and its tail
/// under 100 ms. Hot connections are counted as those written while hot in
/// the last window, so one whose stream stopped (or that closed) drops out
/// by itself after a window.
/// Service thread only.
final class WritePacer {
    let lingerNs: UInt64
    /// Messages per second per connection above which writes are paced;
    /// past `warmRate` (no screen shows each of a hundred a second) when the
    /// daemon is busy writing.
    static let hotRate: UInt64 = 400
    static let warmRate: UInt64 = 100
    /// Messages a second, over all connections, past which warm ones are
    /// paced too: written one by one, about half a core of kernel sends on
    /// the machines measured.
    static let busyMessages: UInt64 = 40_000
    static let windowNs: UInt64 = 50_000_000
    /// Writes a second that hot connections share (≈ 0.45 of a core at
    /// 18 µs a write), and the longest gather that sharing may ask for.
    static let hotWrites: UInt64 = 25_000
    static let maxLingerNs: UInt64 = 50_000_000
    /// Hot connections written in the last window, and so far in this one
    /// (each once: `Connection.hotWindow` is the window it was last counted in).
    private(set) var hotCount = 0
    private var hotInWindow = 0
    private var window: UInt32 = 1
    private var waiting: [(connection: Connection, due: UInt64)] = []
    /// Messages written over all connections in the current window, and
    /// whether the last window was over `busyMessages` a second.
    private var windowStartNs: UInt64 = 0
    private var windowMessages: UInt64 = 0
    private(set) var busy = false
    private var head = 0
    private var armed = false
    private let schedule: (Int64, @escaping () -> Void) -> Void
    /// Hands a connection whose wait is over back to the writer.
    var release: (Connection) -> Void = { _ in }

    init(lingerMs: Int, schedule: @escaping (Int64, @escaping () -> Void) -> Void) {
        lingerNs = UInt64(max(lingerMs, 0)) * 1_000_000
        self.schedule = schedule
    }

    static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    /// Counts the messages a write to `c` carried, closing its rate window
    /// when due: once per write, not per message.
    func wrote(_ c: Connection, messages: Int, now: UInt64) {
        c.lastWriteNs = now
        guard lingerNs > 0 else { return }
        windowMessages &+= UInt64(messages)
        let total = now &- windowStartNs
        if total >= Self.windowNs {
            busy = Self.exceeds(windowMessages, Self.busyMessages, over: total)
            hotCount = hotInWindow
            hotInWindow = 0
            window = window == .max ? 1 : window + 1
            windowStartNs = now
            windowMessages = 0
        }
        c.windowCount &+= UInt32(truncatingIfNeeded: messages)
        let elapsed = now &- c.windowStartNs
        if elapsed >= Self.windowNs {
            let n = UInt64(c.windowCount)
            c.hot = Self.exceeds(n, Self.hotRate, over: elapsed) || (busy && Self.exceeds(n, Self.warmRate, over: elapsed))
            c.windowStartNs = now
            c.windowCount = 0
        }
        if c.hot && c.hotWindow != window {
            c.hotWindow = window
            hotInWindow += 1
        }
    }

    /// The gather between a hot connection's writes: `base`, or longer when
    /// so many are hot that they would be written more than `hotWrites`
    /// times a second, up to `maxLingerNs` (never below `base`).
    @inline(__always)
    static func linger(base: UInt64, hot: Int) -> UInt64 {
        guard base > 0 else { return 0 }
        let shared = UInt64(max(hot, 0)) &* (1_000_000_000 / hotWrites)
        return max(base, min(shared, maxLingerNs))
    }

    /// Whether `count` events in `ns` nanoseconds are more than `perSecond` a second.
    @inline(__always)
    static func exceeds(_ count: UInt64, _ perSecond: UInt64, over ns: UInt64) -> Bool {
        count &* 1_000_000_000 > perSecond &* ns
    }

    /// Whether `c`, about to be written, must wait for its linger first
    /// (then `release` hands it back when the time comes).
    func holds(_ c: Connection, now: UInt64) -> Bool {
        if c.deferred { return true }
        guard c.hot else { return false }
        // Never before the last one waiting: `fire` takes them in order, and
        // the gather can shrink between two of them.
        let due = max(c.lastWriteNs &+ Self.linger(base: lingerNs, hot: hotCount), waiting.last?.due ?? 0)
        guard due > now else { return false }
        c.deferred = true
        waiting.append((c, due))
        arm(at: due)
        return true
    }

    private func arm(at due: UInt64) {
        guard !armed else { return }
        armed = true
        let now = Self.now()
        schedule(Int64(due > now ? (due - now) / 1_000 : 0)) { [weak self] in self?.fire() }
    }

    private func fire() {
        armed = false
        let now = Self.now()
        while head < waiting.count, waiting[head].due <= now {
            let c = waiting[head].connection
            head += 1
            c.deferred = false
            if !c.closed && !c.queue.isEmpty { release(c) }
        }
        if head == waiting.count {
            waiting.removeAll(keepingCapacity: true)
            head = 0
        } else {
            if head > 1024 {
                waiting.removeFirst(head)
                head = 0
            }
            arm(at: waiting[head].due)
        }
    }
}
