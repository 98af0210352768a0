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

    /// The link is still down when the daemon comes back to read the
    /// outcome: its first connections are refused, and the read-back tries
    /// again until it gets an answer from the database.
    @Test func aReadBackThatCannotConnectAtFirstTriesAgain() throws {
        var rig = try Rig()
        defer { rig.shutdown() }
        rig.proxy.arm(.afterCommit(settleMs: 200, refusing: 2))
        let got = try rig.actor.answer(Wire.action(.toggle, id: "cut", #""section":"s0""#), id: "cut")
        #expect(rig.proxy.cuts == 1)
        #expect(rig.proxy.refused == 2, "the daemon's first two connections after the cut were refused")
        #expect(got.type == "ack" && got.rev == rig.rev + 1, "in the log, so acknowledged: \(got)")
        let patch = try rig.watcher.recvSkippingPresence()
        #expect(patch.type == "patch" && patch.rev == rig.rev + 1)
        rig.view = try JSONPatch.apply(try #require(patch["ops"]), to: rig.view)
        #expect(try rig.head()["state"] == rig.view)
        #expect(try rig.loggedRevs() == Array(1..<(rig.rev + 2)))
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
        let refused = Date()
        #expect(try eventually(timeout: 15) { try rig.daemon.http("GET", "/readyz").status == 200 })
        print("commit cut before the server: writes accepted again \(String(format: "%.2f", Date().timeIntervalSince(refused))) s after the refusal")
        let next = try rig.actor.answer(Wire.action(.toggle, id: "next", #""section":"s1""#), id: "next")
        #expect(next.type == "ack" && next.rev == rig.rev + 1, "\(next)")
        let patch = try rig.watcher.recvSkippingPresence()
        #expect(patch.type == "patch" && patch.rev == rig.rev + 1)
        rig.view = try JSONPatch.apply(try #require(patch["ops"]), to: rig.view)
        #expect(try rig.head()["state"] == rig.view)
        #expect(rig.view != before["state"])
        #expect(try rig.loggedRevs() == Array(1..<(rig.rev + 2)))
    }

    /// The cut lands while the server is still inside its COMMIT (held there
    /// by a deferred trigger that sleeps): a read-back at once would see the
    /// old row and answer `internal` for a change that then lands. The
    /// answer must agree with what the log holds in the end.
    @Test func aCommitStillRunningWhenCutIsAnsweredByItsFinalOutcome() throws {
        var rig = try Rig()
        defer { rig.shutdown() }
        try rig.server.psql(rig.uri, """
            CREATE FUNCTION slow_commit() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(1); RETURN NULL; END $$;
            CREATE CONSTRAINT TRIGGER slow_commit AFTER INSERT ON foldsync_changes DEFERRABLE INITIALLY DEFERRED
              FOR EACH ROW EXECUTE FUNCTION slow_commit();
            """)
        rig.proxy.arm(.afterCommit(settleMs: 0))
        let got = try rig.actor.answer(Wire.action(.toggle, id: "cut", #""section":"s0""#), id: "cut")
        #expect(rig.proxy.cuts == 1)
        // Whatever the server did with the COMMIT is settled by now (the trigger sleeps 1 s).
        usleep(1_500_000)
        let logged = try rig.loggedRevs()
        #expect(got.type == "ack" || got.code == "internal", "\(got)")
        if got.type == "ack" {
            #expect(logged == Array(1..<(rig.rev + 2)), "acknowledged, so in the log")
        } else {
            #expect(logged == Array(1..<(rig.rev + 1)), "refused, so not in the log: \(got)")
        }
        #expect(try eventually(timeout: 15) { try rig.head().rev == (logged.last ?? 0) }, "the node agrees with the log")
        print("commit cut while the server was still committing: answered \(got.type ?? "?"), log head \(logged.last ?? 0)")
    }
}
