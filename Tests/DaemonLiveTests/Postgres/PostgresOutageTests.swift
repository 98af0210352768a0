import FoldCore
import FoldTestSupport
import Foundation
import PostgresTestSupport
import Testing

/// PostgreSQL stopped and started while a daemon runs (its own server, so
/// the shared one stays up for the other tests): writes are answered
/// `internal` within the store timeout, reads go on, /readyz says 503, and
/// the daemon takes writes again by itself once the database is back.
@Suite struct PostgresOutageTests {
    @Test func anOutageRefusesWritesInTimeAndRecoversWithoutARestart() throws {
        let server = try PostgresServer()
        defer { server.destroy() }
        // The test server trusts loopback: the password is only there to be hidden.
        let uri = try server.createDatabase().replacingOccurrences(of: "foldsync@", with: "foldsync:hush-42@")
        let n = try NotifySocket(abstract: true)
        let d = try DaemonProcess(["--store", uri, "--store-busy-timeout", "1000"], environment: ["NOTIFY_SOCKET": n.address])
        defer { d.shutdown() }
        #expect(n.waitFor(line: "READY=1") != nil)
        let watcher = try d.connect(), actor = try d.connect()
        let rev = try #require(try watcher.subscribe().rev)

        server.stop(mode: "fast")
        let asked = Date()
        let refused = try actor.answer(Wire.action(.toggle, id: "down", #""section":"s0""#), id: "down")
        // Answered at all, and as the store's failure: a hang would be the receive's timeout thrown above.
        #expect(refused.code == "internal", "answered after \(Date().timeIntervalSince(asked)) s: \(refused)")
        #expect(try d.http("GET", "/readyz").status == 503)
        #expect(try d.http("GET", "/api/boards/default").json().rev == rev, "reads go on from what the node holds")
        // systemctl status says why, naming the database but not the password.
        let down = n.collect(timeout: 5) { $0.contains { $0.contains("STATUS=not ready") } }
        let status = down.last { $0.contains("STATUS=not ready") } ?? ""
        #expect(status.contains("store postgresql://foldsync:***@127.0.0.1:\(server.port)/") && status.contains("refuses writes"), "\(down.suffix(3))")
        #expect(!down.joined().contains("hush-42"))

        try server.start()
        #expect(try eventually(timeout: 15) { try d.http("GET", "/readyz").status == 200 })
        #expect(n.collect(timeout: 5) { $0.last?.contains("STATUS=serving from postgresql://foldsync:***@") == true }
            .last?.contains("STATUS=serving") == true)
        let ok = try actor.answer(Wire.action(.toggle, id: "up", #""section":"s0""#), id: "up")
        #expect(ok.type == "ack")
        #expect(ok.rev == rev + 1)
        let patch = try watcher.waitFor(type: "patch")
        #expect(patch.rev == rev + 1)
        #expect(try server.psql(uri, "SELECT max(rev) FROM foldsync_changes") == String(rev + 1))
    }
}
