@testable import FoldTransport
import Testing

/// The pacer's arithmetic: the rate test and the gather shared by hot connections.
@Suite struct PacingTests {
    @Test func rateIsComparedWithoutDividing() {
        // 21 messages in 50 ms is 420/s: over 400; 20 is exactly 400: not over.
        #expect(Pacing.exceeds(21, 400, over: 50_000_000))
        #expect(!Pacing.exceeds(20, 400, over: 50_000_000))
    }

    @Test func gatherGrowsWithHotConnectionsBetweenItsBounds() {
        let base: UInt64 = 4_000_000
        #expect(Pacing.linger(base: base, paced: 0) == base)
        // At the assumed 2 µs a write: 1,000 writes take 2 ms, half of 4 ms.
        #expect(Pacing.linger(base: base, paced: 1_000) == base)
        #expect(Pacing.linger(base: base, paced: 2_000) == 8_000_000)
        #expect(Pacing.linger(base: base, paced: 20_000) == Pacing.maxLingerNs)
        // A longer configured gather stays; 0 (never gather) stays 0.
        #expect(Pacing.linger(base: 100_000_000, paced: 1_000) == 100_000_000)
        #expect(Pacing.linger(base: 0, paced: 1_000) == 0)
    }

    /// A write that costs 5 µs asks for a gather two and a half times as
    /// long as one of 2 µs, so the paced writes still take half the core.
    @Test func gatherGrowsWithWhatAWriteCosts() {
        let base: UInt64 = 4_000_000
        #expect(Pacing.linger(base: base, paced: 1_000, nsPerWrite: 5_000) == 10_000_000)
        #expect(Pacing.linger(base: base, paced: 2_000, nsPerWrite: 5_000) == 20_000_000)
        #expect(Pacing.linger(base: base, paced: 1_000, nsPerWrite: 1_000) == base)
        #expect(Pacing.linger(base: base, paced: 20_000, nsPerWrite: 5_000) == Pacing.maxLingerNs)
    }

    /// Flushes measure the cost, a window at a time: the average moves a
    /// quarter of the way to each window's measure when the window closes,
    /// ignores flushes of a few writes, and holds a stall within bounds.
    @Test func theCostOfAWriteIsMeasuredByFlushesAWindowAtATime() {
        var p = Pacing(lingerMs: 4)
        var c = PaceState()
        var t: UInt64 = 1_000_000_000
        func closeWindow() {
            t += Pacing.windowNs
            p.wrote(&c, messages: 1, now: t)
        }
        closeWindow()
        #expect(p.nsPerWrite == Pacing.assumedNsPerWrite)
        p.measured(ns: 1_000_000_000, writes: Pacing.measuredWrites - 1)
        closeWindow()
        #expect(p.nsPerWrite == Pacing.assumedNsPerWrite)
        // Two flushes, 10 µs a write over both: counted when the window closes.
        p.measured(ns: 4_000_000, writes: 500)
        p.measured(ns: 16_000_000, writes: 1_500)
        #expect(p.nsPerWrite == Pacing.assumedNsPerWrite)
        closeWindow()
        #expect(p.nsPerWrite == (2_000 * 3 + 10_000) / 4)
        // A window without flushes to measure leaves it.
        closeWindow()
        #expect(p.nsPerWrite == (2_000 * 3 + 10_000) / 4)
        for _ in 0..<40 {
            p.measured(ns: 5_000_000, writes: 1_000)
            closeWindow()
        }
        #expect((4_990...5_010).contains(p.nsPerWrite))
        // A flush stalled for a second: bounded, and a quarter of it.
        p.measured(ns: 1_000_000_000, writes: 100)
        closeWindow()
        #expect(p.nsPerWrite <= (5_010 * 3 + Pacing.nsPerWriteBounds.upperBound) / 4)
        for _ in 0..<40 {
            p.measured(ns: 1_000, writes: 1_000)
            closeWindow()
        }
        #expect((Pacing.nsPerWriteBounds.lowerBound...Pacing.nsPerWriteBounds.lowerBound + 10).contains(p.nsPerWrite))
    }
}
