import FoldCore
import FoldStore
import FoldTestSupport
import Foundation
import Glibc
import Testing

/// `foldsyncd backup` while the daemon writes, and `foldsyncd restore` with
/// it stopped: the copy is one consistent rev; after a restore every board
/// has a new epoch, so a client that comes back resynchronises from a snapshot.
@Suite struct BackupRestoreTests {
    /// Three backups while one writer goes on. The writer keeps its outcome
    /// (it stops only when asked; an error or an ack at a rev other than the
    /// next is kept as why it stopped), and each backup notes how far the
    /// writer had got before and after it: writes were acked during every
    /// backup, and each copy holds every write acked before the backup began
    /// and none that had not been sent by its end.
    @Test func aBackupUnderSteadyWritesHoldsOneConsistentRev() throws {
        let d = try DaemonProcess(["--max-actions-per-second", "100000", "--action-burst", "100000"])
        defer { d.shutdown() }
        // Used by the writer thread alone.
        nonisolated(unsafe) let writer = try d.connect()
        let stop = LockedCounter()
        let written = LockedCounter()
        let failure = PthreadLocked<String?>(nil)
        // One writer, each title naming the rev it makes: a copy is consistent when they agree.
        let thread = Thread {
            var i = 0
            while stop.value == 0 {
                i += 1
                do {
                    let ack = try writer.answer(Wire.action(.setTitle, id: "w\(i)", #""section":"s0","title":"t\#(i)""#), id: "w\(i)")
                    guard ack.type == "ack", ack.rev == i else {
                        failure.withLock { $0 = "w\(i): \(ack.type ?? "?") at rev \(ack.rev ?? -1), not \(i)" }
                        break
                    }
                } catch {
                    failure.withLock { $0 = "w\(i): \(error)" }
                    break
                }
                written.set(i)
            }
            stop.set(2)
        }
        thread.start()
        var copies: [Int] = []
        for n in 0..<3 {
            #expect(eventually(timeout: 10) { written.value >= (n + 1) * 50 || stop.value == 2 }, "the writer is slow: \(written.value) writes")
            let before = written.value
            let out = d.directory.appendingPathComponent("backup-\(n).db").path
            let r = try DaemonProcess.runOnce(["backup", "--db", d.dbPath, out], timeout: 30)
            // Wait for the writer's next ack too: a backup faster than one write still overlaps it.
            #expect(eventually(timeout: 10) { written.value > before || stop.value == 2 }, "backup \(n): no write acked during it")
            let after = written.value
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stdout.contains("backed up") && r.stdout.contains("1 board,"), "\(r.stdout)")
            #expect(!FileManager.default.fileExists(atPath: out + ".partial"))
            let store = try SQLiteStore(path: out)
            let board = try #require(try store.loadBoards().first { $0.name == "default" })
            let doc = try JSONParser.parse(board.state)
            #expect(doc.section("s0")?["title"]?.stringValue == "t\(board.rev)", "rev \(board.rev), state \(String(decoding: board.state, as: UTF8.self))")
            #expect(try store.loadChanges(board: "default", after: board.rev - 1).map(\.rev) == [board.rev])
            #expect(try store.history(board: "default", HistoryQuery(.since(board.rev), limit: 5)).isEmpty, "a change past the copy's rev")
            // One writer, one write in flight: the copy is at least what was acked before, at most one past what was acked after.
            #expect(board.rev >= before && board.rev <= after + 1, "backup \(n) at rev \(board.rev); acked \(before) before, \(after) after")
            store.close()
            copies.append(board.rev)
        }
        // The last copy may hold the write that was in flight when it ended:
        // the writer goes on past it before it is told to stop.
        #expect(eventually(timeout: 10) { written.value > (copies.last ?? 0) || stop.value == 2 }, "the writes stopped at the last copy")
        stop.set(1)
        #expect(eventually(timeout: 10) { stop.value == 2 }, "the writer did not stop")
        #expect(failure.withLock { $0 } == nil, "the writer stopped on its own: \(failure.withLock { $0 } ?? "")")
        #expect(copies == copies.sorted() && copies.first ?? 0 > 0, "\(copies)")
        #expect(written.value > copies.last ?? 0, "the writes went on during the backups")
    }

    @Test func aRestoreGivesEveryBoardANewEpochAndClientsResynchronise() throws {
        let d = try DaemonProcess()
        defer { d.shutdown() }
        #expect(try d.http("PUT", "/api/boards/ops-wall", body: #"{"mode":"multi","sections":[]}"#).status == 200)
        let c = try d.connect()
        let snap = try c.subscribe()
        let epoch = try #require(snap["epoch"]?.stringValue)
        for i in 1...3 { #expect(try c.answer(Wire.action(.toggle, id: "a\(i)", #""section":"s1""#), id: "a\(i)").rev == i) }
        let out = d.directory.appendingPathComponent("at-rev-3.db").path
        #expect(try DaemonProcess.runOnce(["backup", "--db", d.dbPath, out]).status == 0)
        for i in 4...5 { #expect(try c.answer(Wire.action(.toggle, id: "a\(i)", #""section":"s2""#), id: "a\(i)").rev == i) }
        let epochs = try Self.epochs(d)

        // Not while the daemon holds the store.
        let busy = try DaemonProcess.runOnce(["restore", out, "--db", d.dbPath])
        #expect(busy.status == 2 && busy.stderr.contains("held by another foldsyncd"), "\(busy.stderr)")
        #expect(d.stop() == 0)
        let r = try DaemonProcess.runOnce(["restore", out, "--db", d.dbPath])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("2 boards"), "\(r.stdout)")
        #expect(FileManager.default.fileExists(atPath: d.dbPath + ".before-restore"))

        try d.restart()
        let after = try Self.epochs(d)
        #expect(Set(after.keys) == ["default", "ops-wall"])
        for (name, e) in after { #expect(e != epochs[name], "\(name) kept its epoch") }
        // The client comes back with where it was: the epoch changed, so a snapshot at rev 3.
        let back = try d.connect()
        try back.send(Wire.subscribe(since: (epoch, 5)))
        let m = try back.recvSkippingPresence()
        #expect(m.type == "snapshot" && m.rev == 3 && m["epoch"]?.stringValue == after["default"], "\(m)")
        #expect(m["state"]?.expandedIDs == ["s1"])
        // Even from a rev the copy holds: the old epoch cannot resume.
        let older = try d.connect()
        try older.send(Wire.subscribe(since: (epoch, 2)))
        #expect(try older.recvSkippingPresence().type == "snapshot")
    }

    /// A restore onto a path that holds no store yet (a new machine) keeps
    /// nothing aside, and says so: no `.before-restore` to look for.
    @Test func aRestoreIntoANewPlaceNamesNoPreviousFile() throws {
        let d = try DaemonProcess()
        defer { d.shutdown() }
        let out = d.directory.appendingPathComponent("copy.db").path
        #expect(try DaemonProcess.runOnce(["backup", "--db", d.dbPath, out]).status == 0)
        let fresh = d.directory.appendingPathComponent("fresh.db").path
        let r = try DaemonProcess.runOnce(["restore", out, "--db", fresh])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("1 board,") && !r.stdout.contains("before-restore"), "\(r.stdout)")
        #expect(!FileManager.default.fileExists(atPath: fresh + ".before-restore"))
    }

    @Test func postgreSQLBackupsArePgDumpsAndBadUsageIsStatusTwo() throws {
        let pg = try DaemonProcess.runOnce(["backup", "--store", "postgresql://foldsync:pw@127.0.0.1:1/x", "/tmp/out.dump"])
        #expect(pg.status == 2 && pg.stderr.contains("pg_dump") && !pg.stderr.contains("pw@"), "\(pg.stderr)")
        #expect(try DaemonProcess.runOnce(["backup", "--db", "/nonexistent/x.db"]).status == 2)
        let missing = try DaemonProcess.runOnce(["backup", "--db", "/nonexistent/x.db", "/tmp/never.db"])
        #expect(missing.status == 1 && missing.stderr.contains("cannot open"), "\(missing.stderr)")
        // Never over the store itself.
        let d = try DaemonProcess()
        defer { d.shutdown() }
        let onto = try DaemonProcess.runOnce(["backup", "--db", d.dbPath, d.directory.path + "/./foldsync.db"])
        #expect(onto.status == 1 && onto.stderr.contains("is the store itself"), "\(onto.stderr)")
        #expect(try d.http("GET", "/api/boards/default").status == 200)
    }

    static func epochs(_ d: DaemonProcess) throws -> [String: String] {
        var out: [String: String] = [:]
        for b in try d.http("GET", "/api/boards").json()["boards"]?.arrayValue ?? [] {
            if let name = b["board"]?.stringValue { out[name] = b["epoch"]?.stringValue }
        }
        return out
    }
}

/// A number several threads read and one sets.
final class LockedCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var n = 0
    var value: Int { lock.lock(); defer { lock.unlock() }; return n }
    func set(_ v: Int) { lock.lock(); n = v; lock.unlock() }
}
