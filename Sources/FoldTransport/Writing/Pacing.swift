import Dispatch
import Glibc

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
/// The gather grows with the number of paced connections and with what a
/// write costs on this machine, so that their writes together take about
/// half the core (`writeShare`): at 2 µs a write, 1,000 paced connections
/// wait 4 ms and 2,000 wait 8; at 5 µs, 10 and 20. That kept a
/// 1,000-subscriber stream of 1,000 changes a second at about 60 % of the
/// core with a p99 under 10 ms where a write cost 2.5 µs (written at once it
/// takes the whole core, and its tail grows past 40 ms; a gather of 40 ms
/// took 20 % of the core, with a p99 of 44 ms). The cost is measured, not
/// assumed (`measured`): on a machine whose kernel took 5 µs a send, a gather
/// fixed at 4 ms asked for more writes than the core could make, and the
/// stream fell seconds behind at 750 changes a second. Paced connections are
/// counted as those written while paced in the last window, so one whose
/// stream stopped (or that closed) drops out by itself after a window.
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
    /// The share of the core, in thousandths, that paced connections' writes
    /// are gathered to take; the longest gather that may ask for.
    static let writeShare: UInt64 = 500
    static let maxLingerNs: UInt64 = 50_000_000
    /// What a write costs (the service thread's CPU time in flushes over the
    /// writes they made, in ns: the framing, the send and the kernel's work
    /// for it) until flushes have been measured, and the bounds a measure is held within.
    static let assumedNsPerWrite: UInt64 = 2_000
    static let nsPerWriteBounds: ClosedRange<UInt64> = 500...50_000
    /// Writes a flush must make to count (a few are mostly the flush's own
    /// overhead), and a window's flushes to be a measure.
    static let measuredWrites = 32
    /// What a write costs, as measured: a moving average over windows, a
    /// quarter of the way to each window's measure, so that the gather, and
    /// with it every paced connection's due time, moves smoothly.
    private(set) var nsPerWrite = Pacing.assumedNsPerWrite
    private var flushNs: UInt64 = 0
    private var flushWrites: UInt64 = 0
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
            if flushWrites >= UInt64(Self.measuredWrites) {
                let sample = min(max(flushNs / flushWrites, Self.nsPerWriteBounds.lowerBound), Self.nsPerWriteBounds.upperBound)
                nsPerWrite = (nsPerWrite &* 3 &+ sample) / 4
            }
            flushNs = 0
            flushWrites = 0
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

    /// A flush made `writes` writes in `ns` of CPU time: counted towards
    /// the window's measure, which moves `nsPerWrite` when the window closes.
    mutating func measured(ns: UInt64, writes: Int) {
        guard writes >= Self.measuredWrites else { return }
        flushNs &+= ns
        flushWrites &+= UInt64(writes)
    }

    /// The calling thread's CPU time in ns (what a flush costs, whatever
    /// else runs on its core meanwhile).
    static func threadCPU() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }

    /// The gather a paced connection gets now.
    var gatherNs: UInt64 { Self.linger(base: lingerNs, paced: pacedCount, nsPerWrite: nsPerWrite) }

    /// When a connection about to be written must be written instead, or nil
    /// for now; a time marks it `waiting` until the timer hands it back.
    mutating func hold(_ c: inout PaceState, now: UInt64) -> UInt64? {
        guard c.paced else { return nil }
        let due = max(c.lastWriteNs &+ gatherNs, latestDue)
        guard due > now else { return nil }
        latestDue = due
        c.waiting = true
        return due
    }

    /// The gather between a paced connection's writes: `base`, or longer when
    /// writing every paced connection once, at `nsPerWrite` each, would take
    /// more than `writeShare` of the gather, up to `maxLingerNs` (never below `base`).
    @inline(__always)
    static func linger(base: UInt64, paced: Int, nsPerWrite: UInt64 = assumedNsPerWrite) -> UInt64 {
        guard base > 0 else { return 0 }
        let shared = UInt64(max(paced, 0)) &* nsPerWrite &* 1_000 / writeShare
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
