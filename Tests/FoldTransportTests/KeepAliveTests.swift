import FoldTransport
import Testing

/// The keep-alive's decisions, on a clock the test moves (no sockets).
@Suite struct KeepAliveTests {
    let rule = KeepAlive(pingSeconds: 30, hangUpSeconds: 60)
    let s: UInt64 = 1_000_000_000

    @Test func aPeerHeardFromRecentlyIsLeftAlone() {
        #expect(rule.step(lastHeardNs: 100 * s, pingSentNs: 0, now: 129 * s) == .none)
    }

    @Test func silenceForThePingIntervalSendsOnePing() {
        #expect(rule.step(lastHeardNs: 100 * s, pingSentNs: 0, now: 130 * s) == .ping)
        // Sent: no second PING while the first waits for its answer.
        #expect(rule.step(lastHeardNs: 100 * s, pingSentNs: 130 * s, now: 150 * s) == .none)
    }

    @Test func anUnansweredPingEndsInAHangUp() {
        #expect(rule.step(lastHeardNs: 100 * s, pingSentNs: 130 * s, now: 160 * s) == .hangUp)
    }

    /// A sweep that runs late (a busy loop) never skips the PING: the peer
    /// is asked first and gets the hang-up margin to answer.
    @Test func aLateSweepPingsBeforeItHangsUp() {
        #expect(rule.step(lastHeardNs: 100 * s, pingSentNs: 0, now: 200 * s) == .ping)
        #expect(rule.step(lastHeardNs: 100 * s, pingSentNs: 200 * s, now: 229 * s) == .none)
        #expect(rule.step(lastHeardNs: 100 * s, pingSentNs: 200 * s, now: 230 * s) == .hangUp)
    }

    @Test func theHangUpIsAlwaysAfterThePing() {
        let tight = KeepAlive(pingSeconds: 5, hangUpSeconds: 3)
        #expect(tight.hangUpNs > tight.pingNs)
        #expect(tight.hangUpSeconds == 6)
    }

    @Test func aClockThatStepsBackIsNotSilence() {
        #expect(rule.step(lastHeardNs: 100 * s, pingSentNs: 0, now: 50 * s) == .none)
    }
}
