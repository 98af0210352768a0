import FoldCore
import FoldTestSupport
import Foundation
import PostgresTestSupport
import Testing

/// The connection to PostgreSQL lost in the middle of a commit, through a
/// proxy that cuts it at the COMMIT: the daemon reads the outcome back from
/// the database and answers by it — `ack` and a patch when the change is in
/// the log, `internal` and nothing broadcast when it is not — and the revs
/// stay consecutive either way.
@Suite struct CommitCutTests {
    struct Rig {
        let server: PostgresServer
        let uri: String
        let proxy: CuttingProxy
        let daemon: DaemonProcess
        let watcher: TestSocket
        let actor: TestSocket
        let rev: Int
        var view: JSON

        init() throws {
            server = try PostgresServer.shared()
            uri = try server.createDatabase()
            proxy = try CuttingProxy(upstreamPort: server.port)
            daemon = try DaemonProcess(["--store", proxy.route(uri), "--store-busy-timeout", "2000"])
            watcher = try daemon.connect()
            actor = try daemon.connect()
            let snap = try watcher.subscribe()
            rev = try #require(snap.rev)
            view = try #require(snap["state"])
        }

        func head() throws -> JSON { try daemon.http("GET", "/api/boards/default").json() }
        func reconnects() throws -> Double { metric("foldsync_store_reconnects_total", in: try daemon.http("GET", "/metrics").text) ?? -1 }
        func loggedRevs() throws -> [Int] {
            try server.psql(uri, "SELECT rev FROM foldsync_changes WHERE board = 'default' ORDER BY rev")
                .split(separator: "\n").compactMap { Int($0) }
        }
        func shutdown() {
            daemon.shutdown()
            proxy.stop()
        }
    }

    @Test func aCommitThatHappenedBeforeTheCutIsAcknowledged() throws {
        var rig = try Rig()
        defer { rig.shutdown() }
        #expect(try rig.reconnects() == 0)

        rig.proxy.arm(.afterCommit(settleMs: 200))
        let got = try rig.actor.answer(Wire.action(.toggle, id: "cut", #""section":"s0""#), id: "cut")
        #expect(rig.proxy.cuts == 1, "the COMMIT went through the proxy and was cut")
        #expect(got.type == "ack", "in the log, so acknowledged: \(got)")
        #expect(got.rev == rig.rev + 1)
        let patch = try rig.watcher.recvSkippingPresence()
        #expect(patch.type == "patch" && patch.rev == rig.rev + 1)
        rig.view = try JSONPatch.apply(try #require(patch["ops"]), to: rig.view)
        #expect(try rig.head()["state"] == rig.view)
        #expect(try rig.loggedRevs() == Array(1..<(rig.rev + 2)))
        #expect(try rig.reconnects() >= 1)

        // Reconnected through the proxy: the next write is the next rev.
        let next = try rig.actor.answer(Wire.action(.toggle, id: "next", #""section":"s1""#), id: "next")
        #expect(next.type == "ack" && next.rev == rig.rev + 2)
        let second = try rig.watcher.recvSkippingPresence()
        #expect(second.type == "patch" && second.rev == rig.rev + 2)
        rig.view = try JSONPatch.apply(try #require(second["ops"]), to: rig.view)
        #expect(try rig.head()["state"] == rig.view)
        #expect(try rig.loggedRevs() == Array(1..<(rig.rev + 3)))
    }

    @Test func aCommitCutBeforeTheServerIsRefusedAndLeavesNoGap() throws {
        var rig = try Rig()
        defer { rig.shutdown() }
        let before = try rig.head()

        rig.proxy.arm(.beforeCommit)
        let got = try rig.actor.answer(Wire.action(.toggle, id: "cut", #""section":"s0""#), id: "cut")
        #expect(rig.proxy.cuts == 1, "the COMMIT went through the proxy and was cut")
        #expect(got.type == "error" && got.code == "internal", "not in the log, so refused: \(got)")
        #expect(got["message"]?.stringValue?.contains("connection") == true, "says why: \(got)")
        #expect(try rig.head() == before, "the node holds what the log holds")
        #expect(try rig.loggedRevs() == Array(1..<(rig.rev + 1)))
        #expect(try rig.reconnects() >= 1)

        // A failed commit makes the node refuse writes until its probe of the
        // store passes (the backoff's first wait); then the next write takes
        // the rev the refused one did not: no gap, and the first patch the
        // watcher sees is that write's.
        #expect(try eventually(timeout: 15) { try rig.daemon.http("GET", "/readyz").status == 200 })
        let next = try rig.actor.answer(Wire.action(.toggle, id: "next", #""section":"s1""#), id: "next")
        #expect(next.type == "ack" && next.rev == rig.rev + 1, "\(next)")
        let patch = try rig.watcher.recvSkippingPresence()
        #expect(patch.type == "patch" && patch.rev == rig.rev + 1)
        rig.view = try JSONPatch.apply(try #require(patch["ops"]), to: rig.view)
        #expect(try rig.head()["state"] == rig.view)
        #expect(rig.view != before["state"])
        #expect(try rig.loggedRevs() == Array(1..<(rig.rev + 2)))
    }
}
