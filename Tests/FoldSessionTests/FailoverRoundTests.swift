import FoldSession
import Testing

/// `Failover` input by input: which URL comes next, and when a round is over.
@Suite struct FailoverRoundTests {
    /// One failure: whether the next URL is tried at once, and which it is.
    func fail(_ f: inout Failover) -> String {
        let atOnce = f.failed()
        return "\(atOnce ? "next" : "wait") \(f.current)"
    }

    @Test func oneURLEndsTheRoundAtEveryFailure() {
        var f = Failover(count: 1)
        #expect((0..<3).map { _ in fail(&f) } == ["wait 0", "wait 0", "wait 0"])
    }

    @Test func theNextURLAtOnceUntilEveryOneFailed() {
        var f = Failover(count: 3)
        #expect(f.current == 0)
        // The third failure in a row ends the round; the next starts from the URL after the last one tried.
        #expect((0..<4).map { _ in fail(&f) } == ["next 1", "next 2", "wait 0", "next 1"])
    }

    @Test func anOpenedConnectionStartsANewRound() {
        var f = Failover(count: 2)
        #expect(fail(&f) == "next 1")
        f.opened()
        #expect([fail(&f), fail(&f)] == ["next 0", "wait 1"])
    }

    @Test func noURLsCountsAsOne() {
        var f = Failover(count: 0)
        #expect(f.count == 1 && fail(&f) == "wait 0")
    }
}
