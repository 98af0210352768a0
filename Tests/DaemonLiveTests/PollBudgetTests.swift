import FoldTestSupport
import Testing

/// The waits of the live tests count time with `PollBudget`: a stall of the
/// test process is not counted against the work waited for, a slow answer
/// is, and a hang still ends.
@Suite struct PollBudgetTests {
    @Test func timeOnItsOwnRunsOut() {
        var b = PollBudget(seconds: 10, now: 100)
        for t in stride(from: 100.0, to: 109.9, by: 0.05) {
            #expect(b.lasts(now: t))
            b.slept(asked: 0.05, took: 0.05)
        }
        #expect(!b.lasts(now: 110))
        #expect(b.forgiven == 0)
    }

    @Test func aStalledSleepIsNotCounted() {
        var b = PollBudget(seconds: 30, now: 0)
        b.slept(asked: 0.02, took: 25.02)
        // 28 s since the start, 25 of them a stall: 3 s used.
        #expect(b.lasts(now: 28))
        #expect(b.lasts(now: 54.9))
        #expect(!b.lasts(now: 55.1))
        #expect(b.forgiven == 25 && b.longestOverrun == 25)
    }

    @Test func overrunsUpToTheStallAreCounted() {
        var b = PollBudget(seconds: 10, now: 0, stall: 1)
        for _ in 0..<20 { b.slept(asked: 0.02, took: 0.9) }
        #expect(b.forgiven == 0, "a slow host that still runs the poller is not a stall")
        #expect(!b.lasts(now: 10.01))
    }

    @Test func forgivenessIsBoundedSoAHangEnds() {
        var b = PollBudget(seconds: 10, now: 0, forgivable: 60)
        for _ in 0..<10 { b.slept(asked: 0.02, took: 30) }
        #expect(b.forgiven == 60)
        #expect(!b.lasts(now: 70.01))
    }

    @Test func theHelpersReturnOnceTheConditionHolds() async {
        var n = 0
        #expect(eventually(timeout: 5, every: 0.001) { n += 1; return n == 3 })
        #expect(n == 3)
        #expect(!eventually(timeout: 0.05, every: 0.01) { false })
        var m = 0
        #expect(await until(5) { m += 1; return m == 3 })
        #expect(!(await until(0.05) { false }))
    }
}
