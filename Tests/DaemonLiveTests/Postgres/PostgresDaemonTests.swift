import FoldCore
import FoldTestSupport
import Foundation
import PostgresTestSupport
import Testing

/// The daemon on `--store postgresql://...` against a real server the tests
/// start: acks after PostgreSQL's commit, boards and history across a
/// restart, resume with `since`, a newer schema refused, no password logged.
@Suite struct PostgresDaemonTests {
    @Test func actionsAreAckedPersistedAndResumedAcrossARestart() throws {
        let uri = try PostgresServer.shared().createDatabase()
        let d = try DaemonProcess(["--store", uri])
        defer { d.shutdown() }
        let watcher = try d.connect(), actor = try d.connect()
        let snap = try watcher.subscribe()
        let epoch = try #require(snap["epoch"]?.stringValue), rev = try #require(snap.rev)
        var view = try #require(snap["state"])
        for (i, s) in ["s0", "s1", "s2"].enumerated() {
            let got = try actor.answer(Wire.action(.toggle, id: "t\(i)", #""section":"\#(s)""#), id: "t\(i)")
            #expect(got.type == "ack")
            #expect(got.rev == rev + i + 1)
            let patch = try watcher.recvSkippingPresence()
            #expect(patch.type == "patch" && patch.rev == rev + i + 1)
            view = try JSONPatch.apply(try #require(patch["ops"]), to: view)
        }
        #expect(try d.http("GET", "/api/boards/default").json()["state"] == view)
        // Acknowledged means in PostgreSQL already.
        let logged = try PostgresServer.shared().psql(uri, "SELECT count(*) FROM foldsync_changes WHERE board = 'default'")
        #expect(logged == "3")

        #expect(d.stop() == 0, "\(d.stderr)")
        try d.restart()
        let after = try d.http("GET", "/api/boards/default").json()
        #expect(after.rev == rev + 3)
        #expect(after["epoch"]?.stringValue == epoch)
        #expect(after["state"] == view)
        // The history came back from the database: a resume gets exactly the missed patches.
        let c = try d.connect()
        try c.send(Wire.subscribe(since: (epoch, rev)))
        for expected in (rev + 1)...(rev + 3) {
            let m = try c.recvSkippingPresence()
            #expect(m.type == "patch" && m.rev == expected)
        }
    }

    @Test func killedNodeLosesNothingAcknowledged() throws {
        let uri = try PostgresServer.shared().createDatabase()
        let d = try DaemonProcess(["--store", uri])
        defer { d.shutdown() }
        var last = 0
        for i in 0..<20 {
            let r = try d.http("POST", "/api/boards/default/actions", body: #"{"type":"toggle","section":"s\#(i % 3)"}"#)
            last = try #require(try r.json().rev)
        }
        let before = try d.http("GET", "/api/boards/default").json()
        d.kill9()
        try d.restart()
        let after = try d.http("GET", "/api/boards/default").json()
        #expect(after.rev == last)
        #expect(after["state"] == before["state"])
    }

    @Test func aNewerSchemaIsRefusedWithStatus2() throws {
        let server = try PostgresServer.shared()
        let uri = try server.createDatabase()
        // A first run creates the schema; then pretend a newer foldsyncd upgraded it.
        let d = try DaemonProcess(["--store", uri])
        #expect(d.stop() == 0)
        d.shutdown()
        try server.psql(uri, "UPDATE foldsync_meta SET value = '7' WHERE key = 'schema'")
        let run = try DaemonProcess.runOnce(["--listen", "127.0.0.1:0", "--store", uri])
        #expect(run.status == 2)
        #expect(run.stderr.contains("schema version 7"))
    }

    @Test func thePasswordNeverReachesTheLog() throws {
        let server = try PostgresServer.shared()
        let uri = try server.createDatabase()
        // The test server trusts loopback, so any password is accepted and ignored.
        let secret = "pw-\(UUID().uuidString.prefix(8))"
        let withPassword = uri.replacingOccurrences(of: "foldsync@", with: "foldsync:\(secret)@")
        let d = try DaemonProcess(["--store", withPassword, "--log-level", "debug"])
        defer { d.shutdown() }
        _ = try d.http("POST", "/api/boards/default/actions", body: #"{"type":"toggle","section":"s0"}"#)
        #expect(d.stop() == 0)
        #expect(d.stderr.contains("foldsync:***@"))
        #expect(!d.stderr.contains(secret))
        // Nor when the store cannot be reached.
        let dead = try DaemonProcess.runOnce(["--listen", "127.0.0.1:0", "--store", "postgresql://foldsync:\(secret)@127.0.0.1:1/x"])
        #expect(dead.status == 1)
        #expect(!dead.stderr.contains(secret))
    }
}
