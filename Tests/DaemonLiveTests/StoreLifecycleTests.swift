import FoldCore
@testable import FoldStore
import FoldTestSupport
import Foundation
import Glibc
import Testing

/// The store around the daemon's life: a clean stop leaves the `.db` whole
/// on its own, and a store from a newer release is refused with status 2.
@Suite struct StoreLifecycleTests {
    @Test func aCleanStopCheckpointsAndClosesTheStore() throws {
        let d = try DaemonProcess()
        defer { d.shutdown() }
        let reply = try d.http("POST", "/api/boards/default/actions", body: #"{"type":"toggle","section":"s1"}"#)
        #expect(reply.status == 200, "\(reply.text)")
        #expect(FileManager.default.fileExists(atPath: d.dbPath + "-wal"))
        #expect(d.stop() == 0, "\(d.stderr)")
        #expect(!FileManager.default.fileExists(atPath: d.dbPath + "-wal"), "the -wal file is still there")
        #expect(!FileManager.default.fileExists(atPath: d.dbPath + "-shm"), "the -shm file is still there")
        // "Stop the service and copy the file": the copy alone has the change.
        let copy = d.directory.appendingPathComponent("copied.db").path
        try FileManager.default.copyItem(atPath: d.dbPath, toPath: copy)
        let store = try SQLiteStore(path: copy)
        defer { store.close() }
        let board = try #require(try store.loadBoards().first { $0.name == "default" })
        #expect(board.rev == 1)
        #expect(try store.loadChanges(board: "default", after: 0).map(\.rev) == [1])
    }

    @Test func aStoreFromANewerReleaseIsRefusedWithStatusTwo() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("foldsyncd-newer-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("foldsync.db").path
        try SQLiteStore(path: path).close()
        try Self.setUserVersion(99, of: path)
        let r = try DaemonProcess.runOnce(["--listen", "127.0.0.1:0", "--db", path])
        #expect(r.status == 2, "status \(r.status): \(r.stderr)")
        #expect(r.stderr.contains("newer foldsyncd"), "\(r.stderr)")
    }

    /// Writes `PRAGMA user_version` straight into a closed database's header
    /// (4 bytes, big-endian, at offset 60), as a newer release would have left it.
    static func setUserVersion(_ v: UInt32, of path: String) throws {
        let fd = open(path, O_WRONLY)
        guard fd >= 0 else { throw HarnessError("open \(path): errno \(errno)") }
        defer { close(fd) }
        var be = v.bigEndian
        guard pwrite(fd, &be, 4, 60) == 4 else { throw HarnessError("pwrite: errno \(errno)") }
    }
}

/// The daemon on a store of the first release: upgraded at start, said in
/// the log, every board, rev, epoch and resume point served.
@Suite struct StoreUpgradeAtStartTests {
    @Test func aReleaseOneStoreIsUpgradedAtStartAndServed() throws {
        let d = try DaemonProcess.stoppedWithoutStore()
        defer { d.shutdown() }
        let db = try SQLiteDatabase(path: d.dbPath)
        try db.execute(ReleaseOneStore.sqliteSchema)
        try db.execute(ReleaseOneStore.sqliteData)
        db.close()
        let mark = d.logMark
        try d.restart()
        #expect(d.log(after: mark).contains("upgraded the store \(d.dbPath) from schema 1 to \(SQLiteSchema.version)"), "\(d.stderr)")
        let list = try d.http("GET", "/api/boards").json()["boards"]?.arrayValue ?? []
        #expect(list.map { "\($0["board"]?.stringValue ?? "") \($0["epoch"]?.stringValue ?? "") \($0.rev ?? -1)" }
                == ["default 00000000000000aa 3", "ops 00000000000000bb 0"])
        // The resume point survived: from rev 1 of that epoch, exactly revs 2 and 3.
        let c = try d.connect()
        try c.send(Wire.subscribe(since: ("00000000000000aa", 1)))
        #expect(try c.recvSkippingPresence().rev == 2)
        #expect(try c.recvSkippingPresence().rev == 3)
    }
}
