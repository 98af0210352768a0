import FoldCore
import FoldTestSupport
import Foundation
import Glibc
import Testing

/// One SQLite store, one daemon: a second daemon on the same file (by any
/// path to it), a restore or a migration into it, is refused with status 2
/// and a line naming the store and the holder's pid, while the first goes on
/// serving and writing; backups and readers still work beside it; the hold
/// goes with the process. And a store reached through a symlink opens, with
/// its WAL synced where SQLite keeps it.
@Suite struct StoreHoldTests {
    /// Starts a second daemon on `db` (run from `cwd`); it must exit at once.
    static func second(_ db: String, cwd: String? = nil) throws -> (status: Int32, stderr: String) {
        let args = ["--listen", "127.0.0.1:0", "--db", db]
        let r: (status: Int32, stdout: String, stderr: String)
        if let cwd {
            r = try runTool("/bin/sh", ["-c", "cd \"$0\" && exec \"$@\"", cwd, DaemonProcess.binary] + args, timeout: 10)
        } else {
            r = try DaemonProcess.runOnce(args, timeout: 10)
        }
        return (r.status, r.stderr)
    }

    static func toggle(_ d: DaemonProcess, _ section: String) throws -> Int? {
        try d.http("POST", "/api/boards/default/actions", body: #"{"type":"toggle","section":"\#(section)"}"#).json()["rev"]?.intValue
    }

    @Test func aSecondDaemonOnTheSameFileByAnyPathIsRefusedAndTheFirstGoesOn() throws {
        let d = try DaemonProcess()
        defer { d.shutdown() }
        #expect(try Self.toggle(d, "s1") == 1)
        let link = d.directory.appendingPathComponent("link.db").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: d.dbPath)
        let parent = d.directory.deletingLastPathComponent().path
        let relative = d.directory.lastPathComponent + "/foldsync.db"
        for (how, db, cwd) in [("the same path", d.dbPath, nil), ("a symlink", link, nil), ("a relative path", relative, parent)] {
            let r = try Self.second(db, cwd: cwd)
            #expect(r.status == 2, "\(how): \(r.stderr)")
            #expect(r.stderr.contains("held by another foldsyncd (pid \(d.pid))") && r.stderr.contains(db), "\(how): \(r.stderr)")
            #expect(!r.stderr.contains("listening on"), "\(how): \(r.stderr)")
            #expect(r.stderr.split(separator: "\n").count { $0.contains("error") } == 1, "\(how): one line: \(r.stderr)")
        }
        // The first still serves and writes, and nothing the second did shows.
        #expect(try Self.toggle(d, "s2") == 2)
        let metrics = try d.http("GET", "/metrics").text
        #expect(metric("foldsync_commit_failures_total", in: metrics) == 0, "\(metrics)")
        // --check-config takes nothing, notes the holder, and passes a valid configuration.
        let check = try DaemonProcess.runOnce(["--check-config", "--db", link])
        #expect(check.status == 0 && check.stdout.contains("held by a running foldsyncd (pid \(d.pid))"), "\(check)")
        #expect(try Self.toggle(d, "s1") == 3)
    }

    /// The same file through a bind mount (another mount of its folder, in a
    /// mount namespace of the second daemon's own): the same inode, the same hold.
    @Test func aSecondDaemonThroughABindMountIsRefused() throws {
        let d = try DaemonProcess()
        defer { d.shutdown() }
        #expect(try Self.toggle(d, "s1") == 1)
        let mountPoint = d.directory.appendingPathComponent("elsewhere")
        try FileManager.default.createDirectory(at: mountPoint, withIntermediateDirectories: true)
        let r = try runTool("/usr/bin/unshare", ["-m", "/bin/sh", "-c", "mount --bind \"$0\" \"$1\" && exec \"$2\" --listen 127.0.0.1:0 --db \"$1/foldsync.db\"",
                                                 d.directory.path, mountPoint.path, DaemonProcess.binary], timeout: 10)
        #expect(r.status == 2 && r.stderr.contains("held by another foldsyncd (pid \(d.pid))"), "\(r)")
        #expect(try Self.toggle(d, "s1") == 2)
    }

    /// A relative --db, from the daemon's working directory: it opens, serves,
    /// and keeps every acknowledged change across a kill -9.
    @Test func aStoreNamedByARelativePathOpensAndKeepsEveryAck() throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("foldsync-rel-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home.appendingPathComponent("data"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: home) }
        let d = try DaemonProcess(["--db", "data/../data/foldsync.db"], workingDirectory: home)
        defer { d.shutdown() }
        for i in 1...5 { #expect(try Self.toggle(d, "s\(i % 3)") == i) }
        #expect(FileManager.default.fileExists(atPath: home.appendingPathComponent("data/foldsync.db-wal").path))
        d.kill9()
        try d.restart()
        #expect(try d.http("GET", "/api/boards/default").json()["rev"]?.intValue == 5)
    }

    @Test func theHoldGoesWithAKilledDaemonAndTheNextStartsAtOnce() throws {
        let d = try DaemonProcess()
        defer { d.shutdown() }
        #expect(try Self.toggle(d, "s1") == 1)
        d.kill9()
        // Nothing to clean up: the same store starts again at once, with the change.
        try d.restart()
        #expect(try d.http("GET", "/api/boards/default").json()["rev"]?.intValue == 1)
        #expect(try Self.toggle(d, "s1") == 2)
    }

    @Test func aStoreReachedThroughASymlinkToTheFileServesAndKeepsEveryAck() throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("foldsync-link-\(UUID().uuidString)")
        let disk = home.appendingPathComponent("bigger-disk"), etc = home.appendingPathComponent("var-lib")
        try FileManager.default.createDirectory(at: disk, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: etc, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: home) }
        let real = disk.appendingPathComponent("foldsync.db").path
        let link = etc.appendingPathComponent("foldsync.db").path
        // A store moved to another disk and linked back, as operators do.
        let first = try DaemonProcess(["--db", real])
        #expect(try Self.toggle(first, "s0") == 1)
        #expect(first.stop() == 0)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: real)
        let d = try DaemonProcess(["--db", link])
        defer { d.shutdown() }
        for i in 2...21 { #expect(try Self.toggle(d, "s\(i % 3)") == i) }
        // SQLite keeps the WAL beside the real file; nothing appears beside the link.
        #expect(FileManager.default.fileExists(atPath: real + "-wal"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: etc.path) == ["foldsync.db"])
        d.kill9()
        try d.restart()
        #expect(try d.http("GET", "/api/boards/default").json()["rev"]?.intValue == 21)
        #expect(try d.http("GET", "/api/boards/default/history?limit=100").json()["entries"]?.arrayValue?.count == 21)
        // A symlinked folder works too.
        #expect(d.stop() == 0)
        let folder = home.appendingPathComponent("linked-folder")
        try FileManager.default.createSymbolicLink(atPath: folder.path, withDestinationPath: disk.path)
        let again = try DaemonProcess(["--db", folder.appendingPathComponent("foldsync.db").path])
        defer { again.shutdown() }
        #expect(try Self.toggle(again, "s0") == 22)
    }

    @Test func backupAndReadersWorkBesideTheHolderAndRestoreAndMigrationAreRefused() throws {
        let d = try DaemonProcess()
        defer { d.shutdown() }
        for i in 1...3 { #expect(try Self.toggle(d, "s\(i % 3)") == i) }
        let copy = d.directory.appendingPathComponent("copy.db").path
        let b = try DaemonProcess.runOnce(["backup", "--db", d.dbPath, copy])
        #expect(b.status == 0, "\(b.stderr)")
        // A read-only reader of the file (SQLite's own shell when installed; the tests' own opener otherwise).
        let dump = try runTool("/usr/bin/env", ["python3", "-c", "import sqlite3,sys; print(sum(1 for _ in sqlite3.connect(sys.argv[1]).iterdump()))", d.dbPath])
        #expect(dump.status == 0 && (Int(dump.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) > 0, "\(dump)")
        let before = try Data(contentsOf: URL(fileURLWithPath: d.dbPath))
        let restore = try DaemonProcess.runOnce(["restore", copy, "--db", d.dbPath])
        #expect(restore.status == 2 && restore.stderr.contains("held by another foldsyncd (pid \(d.pid))"), "\(restore.stderr)")
        #expect(!FileManager.default.fileExists(atPath: d.dbPath + ".before-restore"))
        #expect(!FileManager.default.fileExists(atPath: d.dbPath + ".restoring"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: d.dbPath)) == before, "the refused restore changed the store")
        let migrate = try DaemonProcess.runOnce(["migrate-store", copy, d.dbPath, "--overwrite"])
        #expect(migrate.status == 2 && migrate.stderr.contains("held by another foldsyncd (pid \(d.pid))"), "\(migrate.stderr)")
        // The holder was never disturbed.
        #expect(try Self.toggle(d, "s0") == 4)
        let epoch = try d.http("GET", "/api/boards/default").json()["epoch"]?.stringValue
        #expect(d.stop() == 0)
        // Stopped, the same restore goes through.
        let done = try DaemonProcess.runOnce(["restore", copy, "--db", d.dbPath])
        #expect(done.status == 0, "\(done.stderr)")
        try d.restart()
        #expect(try d.http("GET", "/api/boards/default").json()["epoch"]?.stringValue != epoch)
    }
}
