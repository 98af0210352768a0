import Dispatch
import FoldCore
import Foundation
import Testing
@testable import FoldStore

/// The daemon's SQLite store commits without syncing and syncs the WAL
/// apart (`SQLiteWALSync`), from another thread, while the next commit is
/// written. Every commit a sync covered is in the file, and one failed sync
/// refuses everything after it.
@Suite struct SyncApartStoreTests {
    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("foldstore-sync-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    var path: String { directory.appendingPathComponent("store.db").path }

    /// The initial board with section s0 titled `t<rev>`.
    func state(_ rev: Int) -> [UInt8] {
        Array(String(decoding: Board.initial.encoded(), as: UTF8.self)
            .replacingOccurrences(of: #""title":"0""#, with: #""title":"t\#(rev)""#).utf8)
    }

    func batch(_ rev: Int) -> CommitBatch {
        var b = CommitBatch(historyLimit: 1_000)
        b.boards = [StoredBoard(name: "b", epoch: "e", rev: rev, state: state(rev))]
        b.changes = [StoredChange(board: "b", rev: rev, ops: Array(#"[{"op":"replace","path":"/sections/0/title","value":"t\#(rev)"}]"#.utf8))]
        return b
    }

    @Test func onlyTheDaemonsStoreSyncsApart() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let plain = try SQLiteStore(path: path)
        #expect(!plain.syncsApart, "a one-off open (a copy, a backup, a migration) syncs in each commit")
        plain.close()
        let daemon = try SQLiteStore(path: path, reserveWAL: true, syncApart: true)
        #expect(daemon.syncsApart)
        daemon.close()
    }

    @Test func commitsWrittenWhileAnotherThreadSyncsAreAllInTheFile() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try SQLiteStore(path: path, reserveWAL: true, syncApart: true)
        #expect(try store.createIfAbsent(StoredBoard(name: "b", epoch: "e", rev: 0, state: state(0))))
        let syncs = DispatchQueue(label: "sync")
        let group = DispatchGroup()
        let failures = LockedCount()
        for rev in 1...200 {
            try store.commit(batch(rev))
            syncs.async(group: group) {
                do { try store.sync() } catch { failures.add() }
            }
        }
        group.wait()
        #expect(failures.value == 0)
        store.close()
        let again = try SQLiteStore(path: path)
        defer { again.close() }
        #expect(try again.loadBoards().first.map { ($0.rev, $0.state) } ?? (0, []) == (200, state(200)))
        #expect(try again.loadChanges(board: "b", after: 0).map(\.rev) == Array(1...200))
    }

    @Test func aFailedSyncRefusesEverySyncAfterIt() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try SQLiteStore(path: path, reserveWAL: true)
        defer { store.close() }
        let sync = try SQLiteWALSync(wal: path + "-wal")
        try sync.sync()
        sync.close()   // its descriptor gone: the next sync fails, as a disk error would
        #expect(throws: StoreError.self) { try sync.sync() }
        #expect(throws: StoreError.self, "a later sync may not succeed without the pages the kernel dropped") { try sync.check() }
    }
}

/// A counter threads may add to.
final class LockedCount: @unchecked Sendable {
    private let lock = NSLock()
    private var n = 0
    func add() { lock.lock(); n += 1; lock.unlock() }
    var value: Int { lock.lock(); defer { lock.unlock() }; return n }
}
