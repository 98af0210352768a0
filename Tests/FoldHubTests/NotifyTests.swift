import FoldCore
import Testing
@testable import FoldHub

/// The service manager hears READY with the status, the watchdog on its
/// clock, the status refreshed, READY after each reload and STOPPING.
@Suite struct NotifyTests {
    @Test func readyThenTheWatchdogAndStatusOnTheirClocks() {
        let h = HubHarness(watchdogEvery: 0.2, statusEvery: 5)
        h.feed(.started)
        #expect(h.notifications.first == "READY=1\nSTATUS=serving from ./foldsync.db; 0 connections, 1 boards")
        #expect(h.notifications.filter { $0 == "WATCHDOG=1" }.count == 1)
        h.open(1)
        for _ in 0..<25 { h.advance(seconds: 0.2) }
        #expect(h.notifications.filter { $0 == "WATCHDOG=1" }.count == 26)
        #expect(h.notifications.contains("STATUS=serving from ./foldsync.db; 1 connections, 1 boards"))

        h.feed(.stop)
        #expect(h.notifications.last == "STOPPING=1")
        let count = h.notifications.count
        h.advance(seconds: 1)
        #expect(h.notifications.count == count, "no watchdog once stopping")
    }

    @Test func withoutAServiceManagerOnlyReady() {
        let h = HubHarness()
        h.feed(.started)
        h.advance(seconds: 10)
        #expect(h.notifications.count == 1 && h.wakes.isEmpty)
    }

    @Test func eachReloadSaysReadyAgainAndARefusalShows() {
        let h = HubHarness()
        h.feed(.reloadRefused("bad line"))
        #expect(h.notifications.last?.contains("last reload refused: bad line") == true)
        h.feed(.reload(h.hub.settings))
        #expect(h.notifications.last == "READY=1\nSTATUS=serving from ./foldsync.db; 0 connections, 1 boards")
    }

    /// A store that refuses writes shows at once, by name and without its
    /// password, and so does its return; probes come further and further apart.
    @Test func aStoreFaultShowsAtOnceAndProbesBackOff() {
        let h = HubHarness(statusEvery: 5) {
            // As the daemon names it (`DaemonConfig.storeName`, tested with the URI's redaction).
            $0.storeName = "postgresql://fold:***@db1:5432/boards"
            $0.storeIsShared = true
        }
        h.feed(.started)
        h.open(1)
        h.store.failure = "connection refused"
        h.act(1, .toggle, #""section":"s0""#)
        h.finishCommits()
        let down = h.notifications.last ?? ""
        #expect(down.hasPrefix("STATUS=not ready: store postgresql://fold:***@db1:5432/boards refuses writes: connection refused"), "\(down)")
        #expect(!h.notifications.joined().contains("secret"))
        var probedAt: [Double] = []
        for step in 1...300 {
            h.advance(seconds: 0.1)
            if h.probes > probedAt.count {
                probedAt.append(Double(step) / 10)
                h.feed(.committed(.probed(ok: false, reason: "connection refused")))
            }
        }
        let gaps = zip(probedAt.dropFirst(), probedAt).map { $0 - $1 }
        // Doubling from 0.25 s to at most 5 s, each with up to half of it random (Backoff's jitter).
        #expect(gaps.count >= 5 && gaps.first ?? 9 < 1, "\(gaps)")
        #expect(gaps.allSatisfy { $0 <= 5.15 } && gaps.suffix(3).allSatisfy { $0 >= 2.4 }, "\(gaps)")
        h.feed(.committed(.probed(ok: true, reason: "")))
        #expect(h.notifications.last?.hasPrefix("STATUS=serving from postgresql://fold:***@db1") == true)
    }
}
