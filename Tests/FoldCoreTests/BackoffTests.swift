import FoldCore
import Testing

@Suite struct BackoffTests {
    @Test func growsExponentiallyUpToTheCap() {
        var b = Backoff(base: 0.5, cap: 10)
        let ceilings = (0..<8).map { _ in b.next(random: 1) }
        #expect(ceilings == [0.5, 1, 2, 4, 8, 10, 10, 10])
    }

    @Test func jitterKeepsAtLeastHalf() {
        var b = Backoff(base: 1, cap: 8)
        #expect(b.next(random: 0) == 0.5)
        #expect(b.next(random: 0.5) == 1.5)
        #expect(b.next(random: 0) == 2)
    }

    @Test func resetStartsOver() {
        var b = Backoff(base: 1, cap: 8)
        _ = b.next(random: 1)
        _ = b.next(random: 1)
        b.reset()
        #expect(b.next(random: 1) == 1)
        #expect(b.attempts == 1)
    }
}
