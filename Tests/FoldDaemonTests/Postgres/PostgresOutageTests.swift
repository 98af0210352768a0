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
        let uri = try server.createDatabase()
        let d = try DaemonProcess(["--store", uri, "--store-busy-timeout", "1000"])
        defer { d.shutdown() }
        let watcher = try d.connect(), actor = try d.connect()
        let rev = try #require(try watcher.subscribe().rev)

        server.stop(mode: "fast")
        let asked = Date()
        let refused = try actor.answer(Wire.action(.toggle, id: "down", #""section":"s0""#), id: "down")
        #expect(refused.code == "internal")
        #expect(Date().timeIntervalSince(asked) < 5, "answered within the store timeout, not hung")
        #expect(try d.http("GET", "/readyz").status == 503)
        #expect(try d.http("GET", "/api/boards/default").json().rev == rev, "reads go on from what the node holds")

        try server.start()
        #expect(try eventually(timeout: 15) { try d.http("GET", "/readyz").status == 200 })
        let ok = try actor.answer(Wire.action(.toggle, id: "up", #""section":"s0""#), id: "up")
        #expect(ok.type == "ack")
        #expect(ok.rev == rev + 1)
        let patch = try watcher.waitFor(type: "patch")
        #expect(patch.rev == rev + 1)
        #expect(try server.psql(uri, "SELECT max(rev) FROM foldsync_changes") == String(rev + 1))
    }
}
