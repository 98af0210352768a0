@testable import FoldTransport
import Testing

/// The pacer's arithmetic: the rate test and the gather shared by hot connections.
@Suite struct WritePacerTests {
    @Test func rateIsComparedWithoutDividing() {
        // 21 messages in 50 ms is 420/s: over 400; 20 is exactly 400: not over.
        #expect(WritePacer.exceeds(21, 400, over: 50_000_000))
        #expect(!WritePacer.exceeds(20, 400, over: 50_000_000))
    }

    @Test func gatherGrowsWithHotConnectionsBetweenItsBounds() {
        let base: UInt64 = 20_000_000
        #expect(WritePacer.linger(base: base, hot: 0) == base)
        #expect(WritePacer.linger(base: base, hot: 500) == base)          // 500 × 50/s = 25,000 writes/s
        #expect(WritePacer.linger(base: base, hot: 1_000) == 40_000_000)  // 1,000 × 25/s
        #expect(WritePacer.linger(base: base, hot: 10_000) == WritePacer.maxLingerNs)
        // A longer configured gather stays; 0 (never gather) stays 0.
        #expect(WritePacer.linger(base: 100_000_000, hot: 1_000) == 100_000_000)
        #expect(WritePacer.linger(base: 0, hot: 1_000) == 0)
    }
}
