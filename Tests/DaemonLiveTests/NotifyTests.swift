import FoldTestSupport
import Foundation
import Glibc
import Testing

/// sd_notify spoken to a socket the test owns: READY=1 with STATUS=, the
/// watchdog, RELOADING=1/READY=1 around SIGHUP, STOPPING=1 on SIGTERM.
@Suite struct NotifyTests {
    @Test(arguments: [true, false])
    func readyWatchdogReloadAndStopping(abstractSocket: Bool) throws {
        let n = try NotifySocket(abstract: abstractSocket)
        let d = try DaemonProcess(environment: ["NOTIFY_SOCKET": n.address, "WATCHDOG_USEC": "400000"])
        defer { d.shutdown() }

        let ready = try #require(n.waitFor(line: "READY=1"), "no READY=1; got \(n.messages)")
        let status = NotifySocket.lines(n.messages[ready]).first { $0.hasPrefix("STATUS=") }
        #expect(status != nil, "READY=1 came without STATUS=: \(n.messages[ready])")
        #expect(status?.contains("connections") == true && status?.contains("boards") == true, "\(status ?? "")")
        // The daemon listens when it says READY: a client is served at once.
        #expect(try d.http("GET", "/healthz").status == 200)

        // WATCHDOG=1 every 200 ms: at least two within a generous bound.
        func watchdogs(_ msgs: [String]) -> Int { msgs.filter { NotifySocket.lines($0).contains("WATCHDOG=1") }.count }
        n.collect(timeout: 10) { watchdogs($0) >= 2 }
        #expect(watchdogs(n.messages) >= 2, "watchdog pings: \(n.messages)")

        // STATUS= reflects a connection once refreshed (every 5 s).
        let c = try d.connect()
        try c.subscribe()
        n.collect(timeout: 12) { msgs in msgs.contains { $0.contains("STATUS=") && $0.contains("1 connections") } }
        #expect(n.messages.contains { $0.contains("STATUS=") && $0.contains("1 connections") }, "\(n.messages.suffix(5))")

        // SIGHUP: RELOADING=1, then READY=1 with STATUS=.
        let beforeHup = n.messages.count
        d.signal(SIGHUP)
        let reloading = n.waitFor(line: "RELOADING=1", from: beforeHup)
        #expect(reloading != nil, "no RELOADING=1 after SIGHUP: \(n.messages.suffix(5))")
        let readyAgain = n.waitFor(line: "READY=1", from: (reloading ?? beforeHup) + 1)
        #expect(readyAgain != nil, "no READY=1 after the reload: \(n.messages.suffix(5))")
        if let readyAgain { #expect(n.messages[readyAgain].contains("STATUS=")) }
        // The watchdog keeps going after a reload.
        let afterReload = n.messages.count
        n.collect(timeout: 10) { watchdogs(Array($0.dropFirst(afterReload))) >= 1 }
        #expect(watchdogs(Array(n.messages.dropFirst(afterReload))) >= 1)

        // SIGTERM: STOPPING=1 and exit 0.
        let beforeTerm = n.messages.count
        d.terminate()
        #expect(n.waitFor(line: "STOPPING=1", from: beforeTerm) != nil, "no STOPPING=1: \(n.messages.suffix(5))")
        #expect(d.waitForExit(timeout: 15) == 0)
        #expect(try c.waitForClose() == 1001)
    }

    /// Without WATCHDOG_USEC there is no watchdog ping, only READY and STATUS.
    @Test func noWatchdogUnlessAsked() throws {
        let n = try NotifySocket(abstract: true)
        let d = try DaemonProcess(environment: ["NOTIFY_SOCKET": n.address])
        defer { d.shutdown() }
        #expect(n.waitFor(line: "READY=1") != nil)
        n.collect(timeout: 1)
        #expect(!n.messages.contains { NotifySocket.lines($0).contains("WATCHDOG=1") }, "\(n.messages)")
        d.terminate()
        #expect(d.waitForExit(timeout: 15) == 0)
    }
}
