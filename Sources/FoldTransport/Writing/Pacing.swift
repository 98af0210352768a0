import Dispatch

/// Decides when a busy connection's queue is written (the arithmetic; the
/// timer that hands a waiting connection back is `WritePacer`'s).
///
/// Each write costs the kernel far more than the bytes in it (a send, the
/// reader's wake-up), so under a heavy stream it pays to let messages gather:
/// corked, they leave in one write whether the peer batches or not. A
/// connection counts as paced when more than `hotRate` messages a second were
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
/// The gather grows with the number of paced connections, so that together
/// they are written about `hotWrites` times a second: 1,000 paced connections
/// wait 4 ms, 2,000 wait 8. That keeps a 1,000-subscriber stream of 1,000
/// changes a second at about 60 % of the core with a p99 under 10 ms
/// (written at once it takes the whole core, and its tail grows past 40
/// ms; a gather of 40 ms took 20 % of the core, with a p99 of 44 ms). Paced connections are counted as those written while paced
/// in the last window, so one whose stream stopped (or that closed) drops out
/// by itself after a window.
struct Pacing {
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
    /// Writes a second that paced connections share (≈ 0.6 of a core at
    /// 2.5 µs a write, as measured on 2026-12-06), and the longest gather
    /// that sharing may ask for.
    static let hotWrites: UInt64 = 250_000
    static let maxLingerNs: UInt64 = 50_000_000
    /// Paced connections written in the last window, and so far in this one
    /// (each once: `PaceState.countedInWindow` is the window it was last counted in).
    private(set) var pacedCount = 0
    private var pacedInWindow = 0
    private var window: UInt32 = 1
    /// Messages written over all connections in the current window, and
    /// whether the last window was over `busyMessages` a second.
    private var windowStartNs: UInt64 = 0
    private var windowMessages: UInt64 = 0
    private(set) var busy = false
    /// The latest time a connection was told to wait until: a later one never
    /// goes before it, since the timer hands them back in order and the
    /// gather can shrink between two of them.
    private var latestDue: UInt64 = 0

    init(lingerMs: Int) {
        lingerNs = UInt64(max(lingerMs, 0)) * 1_000_000
    }

    static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    /// Counts the messages a write to a connection carried, closing its rate
    /// window when due: once per write, not per message.
    mutating func wrote(_ c: inout PaceState, messages: Int, now: UInt64) {
        c.lastWriteNs = now
        guard lingerNs > 0 else { return }
        windowMessages &+= UInt64(messages)
        let total = now &- windowStartNs
        if total >= Self.windowNs {
            busy = Self.exceeds(windowMessages, Self.busyMessages, over: total)
            pacedCount = pacedInWindow
            pacedInWindow = 0
            window = window == .max ? 1 : window + 1
            windowStartNs = now
            windowMessages = 0
        }
        c.windowCount &+= UInt32(truncatingIfNeeded: messages)
        let elapsed = now &- c.windowStartNs
        if elapsed >= Self.windowNs {
            let n = UInt64(c.windowCount)
            c.paced = Self.exceeds(n, Self.hotRate, over: elapsed) || (busy && Self.exceeds(n, Self.warmRate, over: elapsed))
            c.windowStartNs = now
            c.windowCount = 0
        }
        if c.paced && c.countedInWindow != window {
            c.countedInWindow = window
            pacedInWindow += 1
        }
    }

    /// When a connection about to be written must be written instead, or nil
    /// for now; a time marks it `waiting` until the timer hands it back.
    mutating func hold(_ c: inout PaceState, now: UInt64) -> UInt64? {
        guard c.paced else { return nil }
        let due = max(c.lastWriteNs &+ Self.linger(base: lingerNs, paced: pacedCount), latestDue)
        guard due > now else { return nil }
        latestDue = due
        c.waiting = true
        return due
    }

    /// The gather between a paced connection's writes: `base`, or longer when
    /// so many are paced that they would be written more than `hotWrites`
    /// times a second, up to `maxLingerNs` (never below `base`).
    @inline(__always)
    static func linger(base: UInt64, paced: Int) -> UInt64 {
        guard base > 0 else { return 0 }
        let shared = UInt64(max(paced, 0)) &* (1_000_000_000 / hotWrites)
        return max(base, min(shared, maxLingerNs))
    }

    /// Whether `count` events in `ns` nanoseconds are more than `perSecond` a second.
    @inline(__always)
    static func exceeds(_ count: UInt64, _ perSecond: UInt64, over ns: UInt64) -> Bool {
        count &* 1_000_000_000 > perSecond &* ns
    }
}

/// One connection's part of the pacing: when it was last written, its rate
/// window, whether it is paced (and the window it was last counted in), and
/// whether it waits for the pacer's timer.
struct PaceState {
    var lastWriteNs: UInt64 = 0
    var windowStartNs: UInt64 = 0
    var windowCount: UInt32 = 0
    var paced = false
    var countedInWindow: UInt32 = 0
    var waiting = false
}
