import FoldCore
import Testing
@testable import FoldHub

/// The service manager hears READY with the status, the watchdog on its
/// clock, the status refreshed, READY after each reload and STOPPING.
@Suite struct NotifyTests {
    @Test func readyThenTheWatchdogAndStatusOnTheirClocks() {
        let h = HubHarness(watchdogEvery: 0.2, statusEvery: 5)
        h.feed(.started)
        #expect(h.notifications.first == "READY=1\nSTATUS=serving; 0 connections, 1 boards")
        #expect(h.notifications.filter { $0 == "WATCHDOG=1" }.count == 1)
        h.open(1)
        for _ in 0..<25 { h.advance(seconds: 0.2) }
        #expect(h.notifications.filter { $0 == "WATCHDOG=1" }.count == 26)
        #expect(h.notifications.contains("STATUS=serving; 1 connections, 1 boards"))

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
        h.feed(.reload(h.hub.config))
        #expect(h.notifications.last == "READY=1\nSTATUS=serving; 0 connections, 1 boards")
    }
}
