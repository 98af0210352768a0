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
        #expect(Pacing.linger(base: base, paced: 1_000) == base)         // 1,000 × 250/s = 250,000 writes/s
        #expect(Pacing.linger(base: base, paced: 2_000) == 8_000_000)    // 2,000 × 125/s
        #expect(Pacing.linger(base: base, paced: 20_000) == Pacing.maxLingerNs)
        // A longer configured gather stays; 0 (never gather) stays 0.
        #expect(Pacing.linger(base: 100_000_000, paced: 1_000) == 100_000_000)
        #expect(Pacing.linger(base: 0, paced: 1_000) == 0)
    }
}
