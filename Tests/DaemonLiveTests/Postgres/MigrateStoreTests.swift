import FoldCore
import FoldTestSupport
import Foundation
import PostgresTestSupport
import Testing

/// `foldsyncd migrate-store FROM TO`: a SQLite daemon's boards move to
/// PostgreSQL with their epochs, revs and history (a client resumes across
/// the move), a non-empty target is refused unless `--overwrite`.
@Suite struct MigrateStoreTests {
    @Test func boardsMoveFromSQLiteToPostgresWithTheirHistory() throws {
        let old = try DaemonProcess()
        defer { old.shutdown() }
        for i in 0..<5 {
            #expect(try old.http("POST", "/api/boards/default/actions", body: #"{"type":"toggle","section":"s\#(i % 3)"}"#,
                                 headers: [("Idempotency-Key", "before-move-\(i)")]).status == 200)
        }
        let doc = #"{"mode":"multi","sections":[{"id":"a","title":"A","items":["x"],"expanded":false}]}"#
        #expect(try old.http("PUT", "/api/boards/team", body: doc).status == 200)
        #expect(try old.http("POST", "/api/boards/team/actions", body: #"{"type":"toggle","section":"a"}"#).status == 200)
        let before = try ["default", "team"].map { try old.http("GET", "/api/boards/\($0)").json() }
        #expect(old.stop() == 0)

        let uri = try PostgresServer.shared().createDatabase()
        let run = try DaemonProcess.runOnce(["migrate-store", "sqlite:\(old.dbPath)", uri])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("migrated 2 board(s) and 6 change(s)"), "\(run.stdout)")

        let moved = try DaemonProcess(["--store", uri])
        defer { moved.shutdown() }
        for (i, name) in ["default", "team"].enumerated() {
            #expect(try moved.http("GET", "/api/boards/\(name)").json() == before[i], "board \(name): epoch, rev and state")
        }
        // A client of the old daemon resumes on the new one: the history came along.
        let c = try moved.connect()
        let epoch = try #require(before[0]["epoch"]?.stringValue)
        try c.send(Wire.subscribe(since: (epoch, 2)))
        for rev in 3...5 {
            let p = try c.recvSkippingPresence()
            #expect(p.type == "patch" && p.rev == rev)
        }
        // So did the action keys: a retry sent after the move is a repeat.
        let retry = try moved.http("POST", "/api/boards/default/actions", body: #"{"type":"toggle","section":"s1"}"#,
                                   headers: [("Idempotency-Key", "before-move-1")])
        #expect(retry.text == #"{"rev":2,"duplicate":true}"#, "\(retry.text)")
        #expect(moved.stop() == 0)

        // The target holds boards now: refused, then replaced when told.
        let again = try DaemonProcess.runOnce(["migrate-store", old.dbPath, uri])
        #expect(again.status == 2)
        #expect(again.stderr.contains("already holds 2 board(s)") && again.stderr.contains("--overwrite"), "\(again.stderr)")
        let forced = try DaemonProcess.runOnce(["migrate-store", old.dbPath, uri, "--overwrite"])
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(try PostgresServer.shared().psql(uri, "SELECT count(*) FROM foldsync_changes") == "6")
    }

    @Test func aMissingSourceOrBadUsageIsAnError() throws {
        let uri = try PostgresServer.shared().createDatabase()
        let missing = try DaemonProcess.runOnce(["migrate-store", "/nonexistent/foldsync.db", uri])
        #expect(missing.status == 1 && missing.stderr.contains("no SQLite file at /nonexistent/foldsync.db"), "\(missing.stderr)")
        let usage = try DaemonProcess.runOnce(["migrate-store", uri])
        #expect(usage.status == 2 && usage.stderr.contains("usage: foldsyncd migrate-store FROM TO"), "\(usage.stderr)")
        // Back the other way works too: PostgreSQL to a new SQLite file.
        let d = try DaemonProcess(["--store", uri])
        _ = try d.http("POST", "/api/boards/default/actions", body: #"{"type":"toggle","section":"s0"}"#)
        #expect(d.stop() == 0)
        let file = d.directory.appendingPathComponent("back.db").path
        let back = try DaemonProcess.runOnce(["migrate-store", uri, file])
        #expect(back.status == 0, "\(back.stderr)")
        d.shutdown()
    }
}
