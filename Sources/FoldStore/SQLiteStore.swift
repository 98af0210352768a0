import CSQLite
import FoldCore
import Glibc

/// The SQLite engine: WAL mode, one transaction per batch, so a group of
/// changes costs one fsync: inside the COMMIT (`synchronous=FULL`), or, for
/// the daemon's store, apart from it (`syncApart`, see `SQLiteWALSync`).
///
/// Not thread-safe by itself: used at start-up, then only by the committer
/// thread (the `BoardStore` contract), hence `@unchecked Sendable`.
public final class SQLiteStore: BoardStore, @unchecked Sendable {
    private let db: SQLiteDatabase
    private let path: String
    private let busyTimeoutMs: Int
    /// nil once closed.
    private var sql: SQLiteStatements?
    private let checkpointer: SQLiteCheckpointer
    /// Which boards' state the file holds at which rev (see `StateSnapshots`).
    private var snapshots = StateSnapshots()
    /// Which changes wait in the journal (see `LogPlacement`), and the same as
    /// committed for the history reader's thread.
    private var staging = LogPlacement()
    private let staged = WaitingChanges()
    /// Where each kept key's row is; nil until the table was first read.
    private var keyRows: KeyQueues?
    /// Set when commits return before their sync (`syncApart`).
    private let walSync: SQLiteWALSync?
    /// This process's claim on the file, when it serves it.
    private let hold: SQLiteStoreHold?
    /// The schema version the file had when opened (0: new), for the log.
    public let openedVersion: Int
    /// The version this binary writes.
    public static var schemaVersion: Int { SQLiteSchema.version }
    public var upgradedSchema: (from: Int, to: Int)? {
        openedVersion > 0 && openedVersion < Self.schemaVersion ? (openedVersion, Self.schemaVersion) : nil
    }

    /// Opens (creating if needed) the database at `path`, upgrading a store
    /// of an earlier release. `busyTimeoutMs` bounds how long a commit waits
    /// for a lock held by someone else before it counts as failed.
    /// `reserveWAL`: a store that will serve commits writes its WAL's blocks
    /// once now (see `reserveWAL`); a one-off open (a copy, a backup) skips it.
    /// `syncApart`: a commit returns once written and `sync` makes it
    /// durable (in WAL mode only; otherwise every commit syncs as before).
    /// `hold`: the store is this process's alone while open (`SQLiteStoreHold`),
    /// taken before anything is read or written.
    public init(path: String, busyTimeoutMs: Int = 2_000, reserveWAL: Bool = false, syncApart: Bool = false, hold: Bool = false) throws(StoreError) {
        db = try SQLiteDatabase(path: path)
        if hold { self.hold = try SQLiteStoreHold(file: db.filename, shown: path) } else { self.hold = nil }
        self.path = path
        self.busyTimeoutMs = busyTimeoutMs
        try db.setBusyTimeout(milliseconds: busyTimeoutMs)
        try db.execute("PRAGMA journal_mode=WAL")
        try db.execute("PRAGMA synchronous=FULL")
        // Chunks and the journal reach past SQLite's 2 MiB default: pages read again from the file cost a read(2) each.
        try db.execute("PRAGMA cache_size = -\(Self.cacheKiB)")
        checkpointer = SQLiteCheckpointer(path: path)
        openedVersion = try SQLiteSchema.prepare(db)
        let statements = try SQLiteStatements(db, staged: staged)
        sql = statements
        let (recovered, changes) = try Self.recoverStaging(db)
        staging = recovered
        staged.apply(changes.mapValues { .replace($0) })
        if reserveWAL { walBytes = try Self.reserveWAL(db, statements) }
        if syncApart, try Self.inWALMode(db) {
            // A store opened without writing has no WAL file yet: one write makes it.
            // Beside the file SQLite opened, which is not beside `path` when that is a symlink.
            let wal = db.walFilename
            if access(wal, F_OK) != 0 { try db.execute(Self.touch) }
            walSync = try SQLiteWALSync(wal: wal)
            try db.execute("PRAGMA synchronous=NORMAL")
        } else {
            walSync = nil
        }
        checkpointer.attach(to: db.handle)
        checkpointer.start()
    }

    /// The writer's page cache.
    static let cacheKiB = 32 << 10

    /// The WAL's size after `reserveWAL` (0 when not reserved).
    public private(set) var walBytes: Int64 = 0

    /// The WAL's size before a checkpoint: `SQLiteCheckpointer.pages` frames
    /// (a page and its 24-byte header each) plus the file header, rounded up
    /// to a MiB.
    static func walBytes(pageSize: Int64) -> Int64 {
        let mib: Int64 = 1 << 20
        return (Int64(SQLiteCheckpointer.pages) * (pageSize + 24) + 32 + mib - 1) / mib * mib
    }

    /// Writes the WAL's first `walBytes` once, as zeros, so that commits
    /// overwrite blocks the file already has. A commit that grows the file
    /// makes `fdatasync` write the inode and the new blocks' metadata too:
    /// on this machine's disk 0.92–1.05 ms a commit against 0.65–0.71 ms
    /// (median of 200 8 KiB writes each followed by `fdatasync`, one every
    /// 50 ms). SQLite reuses the WAL from its start after each complete
    /// checkpoint, so without this only the first ≈ 500 commits after every
    /// start grow it; a benchmark on a new database sees nothing else.
    /// Done inside `BEGIN IMMEDIATE`: no other writer can append meanwhile.
    /// A failure costs only speed, so it is not an error. Returns the size
    /// asked for (0: no WAL).
    private static func reserveWAL(_ db: SQLiteDatabase, _ sql: SQLiteStatements) throws(StoreError) -> Int64 {
        // Only a WAL: a file system without shared memory leaves SQLite in rollback mode.
        guard try inWALMode(db) else { return 0 }
        let page = try db.prepare("PRAGMA page_size")
        let pageSize = try page.step() ? Int64(page.int(0)) : 4_096
        page.reset()
        let bytes = walBytes(pageSize: pageSize)
        try sql.begin.run()
        _ = fs_sqlite_wal_extend(db.handle, bytes)
        try sql.commit.run()
        return bytes
    }

    private static func inWALMode(_ db: SQLiteDatabase) throws(StoreError) -> Bool {
        let mode = try db.prepare("PRAGMA journal_mode")
        defer { mode.reset() }
        return try mode.step() && mode.text(0) == "wal"
    }

    /// The journal's runs as the last commit left them, less what a chunk
    /// already holds and what an older epoch of a board made.
    private static func recoverStaging(_ db: SQLiteDatabase) throws(StoreError) -> (LogPlacement, [String: [StoredChange]]) {
        let rows = try db.prepare("SELECT seq, runs FROM journal ORDER BY seq")
        var journal: [(seq: Int, runs: [StagedRun])] = []
        while try rows.step() { journal.append((rows.int(0), try LogChunk.decodeJournal(rows.blob(1)))) }
        var waiting = LogPlacement.waiting(in: journal)
        let epochs = try db.prepare("SELECT epoch FROM boards WHERE name = ?1")
        let last = try db.prepare("SELECT max(last) FROM chunks WHERE board = ?1")
        for (name, w) in waiting {
            epochs.reset(); try epochs.bind(1, name)
            last.reset(); try last.bind(1, name)
            let moved = try last.step() ? last.int(0) : 0
            let kept = try epochs.step() && epochs.text(0) == w.epoch ? w.changes.filter { $0.rev > moved } : []
            waiting[name] = kept.isEmpty ? nil : (w.epoch, w.since, kept)
        }
        epochs.reset(); last.reset()
        let staging = LogPlacement(waiting: waiting.mapValues { .init(epoch: $0.epoch, count: $0.changes.count, since: $0.since) },
                                 rows: journal.map(\.seq))
        return (staging, waiting.mapValues(\.changes))
    }

    deinit { close() }

    private func statements() throws(StoreError) -> SQLiteStatements {
        guard let sql else { throw StoreError("the store is closed") }
        return sql
    }

    public func loadBoards() throws(StoreError) -> [StoredBoard] {
        let s = try statements().selectBoards
        s.reset()
        defer { s.reset() }
        var rows: [StoredBoard] = []
        while try s.step() {
            rows.append(StoredBoard(name: s.text(0), epoch: s.text(1), rev: s.int(2), state: s.blob(3)))
        }
        s.reset()
        // A row's state may lag its board by a few revs: the changes logged after it bring it to the head.
        return try rows.map { (row: StoredBoard) throws(StoreError) -> StoredBoard in
            let board = try StateSnapshots.head(of: row, after: loadChanges(board: row.name, after: row.rev))
            snapshots.loaded(row.name, .init(epoch: row.epoch, stateRev: row.rev, head: board.rev))
            return board
        }
    }

    public func loadCatalog() throws(StoreError) -> [CatalogEntry] {
        let s = try statements().selectCatalog
        s.reset()
        defer { s.reset() }
        var rows: [CatalogEntry] = []
        while try s.step() {
            rows.append(CatalogEntry(name: s.text(0), epoch: s.text(1), rev: s.int(2)))
        }
        s.reset()
        // The head: the row's rev, or its last change logged after it (the document is not read).
        return try rows.map { (row: CatalogEntry) throws(StoreError) -> CatalogEntry in
            let after = try loadChanges(board: row.name, after: row.rev)
            try StateSnapshots.checkRun(of: row.name, from: row.rev, after)
            var entry = row
            entry.rev = after.last?.rev ?? row.rev
            snapshots.loaded(row.name, .init(epoch: row.epoch, stateRev: row.rev, head: entry.rev))
            return entry
        }
    }

    public func loadChanges(board: String, after rev: Int) throws(StoreError) -> [StoredChange] {
        try statements().history.read(board: board, HistoryQuery(.since(rev), limit: .max))
    }

    public func history(board: String, _ query: HistoryQuery) throws(StoreError) -> [StoredChange] {
        try statements().history.read(board: board, query)
    }

    /// Another connection to the same file, for history reads on a thread of
    /// their own: in WAL mode a reader never blocks the writer, and each read
    /// sees every transaction committed before it began.
    public func historyReader() throws(StoreError) -> any HistoryReader & Sendable {
        try SQLiteHistoryReader(path: path, busyTimeoutMs: busyTimeoutMs, staged: staged)
    }

    public var syncsApart: Bool { walSync != nil }

    /// The sync thread's: see `SQLiteWALSync`.
    public func sync() throws(StoreError) { try walSync?.sync() }

    public func commit(_ batch: CommitBatch) throws(StoreError) {
        let sql = try statements()
        try walSync?.check()
        var batch = batch
        // A record that already has its time (migrate-store) keeps it.
        if !batch.recordsTimed {
            for i in batch.changes.indices where batch.changes[i].record?.at == 0 { batch.changes[i].record?.at = batch.now }
        }
        let plan = snapshots.plan(batch)
        // A board pruned in this commit first moves what it has staged into its chunks.
        let pruned = Set(batch.boards.lazy.filter { plan.prune.contains($0.name) && batch.prunable(below: $0.rev) > 0 }.map(\.name))
        let log = staging.plan(batch, flush: pruned)
        try sql.begin.run()
        do {
            for name in batch.deletions {
                sql.deleteBoard.reset(); try sql.deleteBoard.bind(1, name); try sql.deleteBoard.run()
                sql.deleteChunks.reset(); try sql.deleteChunks.bind(1, name); try sql.deleteChunks.run()
                try deleteKeys(of: name, sql)
            }
            try writeKeys(batch, sql)
            for b in batch.boards where plan.write.contains(b.name) {
                let s = sql.upsertBoard
                s.reset()
                try s.bind(1, b.name); try s.bind(2, b.epoch)
                try s.bind(3, b.rev); try s.bind(4, blob: b.encodedState)
                try s.run()
            }
            for chunk in log.chunks {
                try sql.chunks.write(chunk.board, chunk.staged ? staged.changes(of: chunk.board) : [], chunk.changes)
            }
            if !log.journal.isEmpty {
                let s = sql.insertJournal
                s.reset()
                try s.bind(1, log.seq)
                LogChunk.encodeJournal(log.journal, into: &journalBuffer)
                try s.run(binding: journalBuffer, at: 2)
            }
            if let below = log.dropBelow {
                sql.dropJournal.reset(); try sql.dropJournal.bind(1, below); try sql.dropJournal.run()
            }
            for b in batch.boards where pruned.contains(b.name) {
                try prune(b.name, below: batch.prunable(below: b.rev), olderThan: batch.cutoff, sql)
            }
            try sql.commit.run()
            snapshots.committed(plan.after)
            staging.committed(log)
            staged.apply(log.updates)
        } catch {
            try? db.execute("ROLLBACK")
            // What the queues say of the rows is what this commit would have made: read again at the next use.
            keyRows = nil
            throw error
        }
    }

    /// The batch's keys, every board's in one row of `key_commits`
    /// (`KeyPack`); the rows the keys the hub forgot emptied; every 64 revs
    /// a board's keys past both bounds (older than `keyKeepMs` and below its
    /// last `historyLimit` revs); and the live keys of the oldest rows that
    /// are mostly dead, moved into this commit's row (`KeyQueues`). Each
    /// delete goes by rowid.
    private func writeKeys(_ batch: CommitBatch, _ sql: SQLiteStatements) throws(StoreError) {
        if keyRows == nil { _ = try readKeys(sql) }
        for k in batch.forgottenKeys {
            if let row = keyRows!.forget(board: k.board, key: k.packed) { try deleteKeyRow(row, sql) }
        }
        let keys = batch.keys
        // Pruned when a board's keys pass a multiple of 64 revs, not on every commit.
        var newest: [String: Int] = [:]
        keys.withUnsafeBufferPointer { ks in
            for i in ks.indices where ks[i].rev > 0 && ks[i].rev % 64 == 0 { newest[ks[i].board] = max(newest[ks[i].board] ?? 0, ks[i].rev) }
        }
        for (board, rev) in newest {
            for row in keyRows!.prune(board: board, olderThan: batch.now &- batch.keyKeepMs, maxRev: rev - batch.historyLimit) {
                try deleteKeyRow(row, sql)
            }
        }
        var count = 0
        // Taken out while the keys are filed and written, and put back: the
        // buffers are reused commit after commit.
        var grouping = keyGrouping, row = keyRowBuffer
        keyGrouping = KeyGrouping()
        keyRowBuffer = []
        row.removeAll(keepingCapacity: true)
        let groups = keys.withUnsafeBufferPointer { ks in
            let groups = grouping.file(ks)
            for g in 0..<groups {
                let run = grouping.run(g), first = ks[run.first!]
                KeyPack.appendGroup(board: first.board, at: first.at == 0 ? batch.now : first.at, count: run.count, to: &row)
                for i in run { KeyPack.append(ks[i].packed, rev: ks[i].rev, fingerprint: ks[i].fingerprint, to: &row) }
                count += run.count
            }
            return groups
        }
        keyRowBuffer = row
        defer { keyGrouping = grouping }
        let moves = try compact(sql, count: &count)
        guard count > 0 else {
            for m in moves {
                keyRows!.moved(from: m.old, [:], to: nil)
                try deleteKeyRow(m.old, sql)
            }
            return
        }
        let s = sql.insertKeyRow
        s.reset()
        try s.bind(1, count)
        try s.run(binding: keyRowBuffer, at: 2)
        let rowid = Int(sqlite3_last_insert_rowid(db.handle))
        keys.withUnsafeBufferPointer { keyRows!.wrote(row: rowid, at: batch.now, $0, grouping: grouping, groups: groups) }
        for m in moves {
            keyRows!.moved(from: m.old, m.places, to: rowid)
            try deleteKeyRow(m.old, sql)
        }
    }

    /// The batch's keys by board, kept between commits (`KeyGrouping`).
    private var keyGrouping = KeyGrouping()

    /// The live keys of the rows `KeyQueues.compactable` names, appended to
    /// this commit's row in `keyRowBuffer` (each group with its own time);
    /// returns the rows to delete and where their keys stand in the queues.
    private func compact(_ sql: SQLiteStatements, count: inout Int) throws(StoreError) -> [(old: Int, places: [String: [Int]])] {
        var moves: [(old: Int, places: [String: [Int]])] = []
        for old in keyRows!.compactable(limit: 8, slack: keySlack) {
            let s = sql.selectKeyRow
            s.reset()
            defer { s.reset() }
            try s.bind(1, old)
            guard try s.step() else { continue }
            guard let groups = KeyPack.decode(s.blob(0)) else { throw StoreError("key row \(old) is unreadable") }
            s.reset()
            var placed: [String: [Int]] = [:]
            // Each board's live keys in the row, found in one pass over its queue.
            var live: [String: [UInt64: [Int]]] = [:]
            for g in groups {
                if live[g.board] == nil { live[g.board] = keyRows!.places(board: g.board, row: old) }
                var kept: [KeyPack.Entry] = []
                for e in g.entries {
                    guard let i = live[g.board]![e.key.hash]?.first else { continue }
                    live[g.board]![e.key.hash]!.removeFirst()
                    placed[g.board, default: []].append(i)
                    kept.append(e)
                }
                guard !kept.isEmpty else { continue }
                KeyPack.appendGroup(board: g.board, at: g.at, count: kept.count, to: &keyRowBuffer)
                for e in kept { KeyPack.append(e.key, rev: e.rev, fingerprint: e.fingerprint, to: &keyRowBuffer) }
                count += kept.count
            }
            moves.append((old, placed))
        }
        return moves
    }

    /// Dead keys tolerated in `key_commits` beyond as many as are live (`KeyQueues.compactable`).
    var keySlack = KeyQueues.slack

    /// Where a commit's row of keys is encoded: kept between commits.
    private var keyRowBuffer: [UInt8] = []

    private func deleteKeyRow(_ rowid: Int, _ sql: SQLiteStatements) throws(StoreError) {
        let s = sql.deleteKeyRow
        s.reset()
        try s.bind(1, rowid)
        try s.run()
    }

    private func deleteKeys(of board: String, _ sql: SQLiteStatements) throws(StoreError) {
        if keyRows == nil { _ = try readKeys(sql) }
        for row in keyRows!.drop(board: board) { try deleteKeyRow(row, sql) }
    }

    /// Every kept key, each board's in the order written (oldest first).
    public func loadKeys() throws(StoreError) -> [StoredKey] {
        try readKeys(try statements())
    }

    private func readKeys(_ sql: SQLiteStatements) throws(StoreError) -> [StoredKey] {
        let s = sql.selectKeyRows
        s.reset()
        defer { s.reset() }
        var found: [(key: StoredKey, row: Int)] = []
        while try s.step() {
            let row = s.int(0)
            guard let groups = KeyPack.decode(s.blob(1)) else { throw StoreError("key row \(row) is unreadable") }
            for g in groups {
                for e in g.entries { found.append((StoredKey(board: g.board, packed: e.key, rev: e.rev, fingerprint: e.fingerprint, at: g.at), row)) }
            }
        }
        // By board (names compared once a board, not once a key), then each
        // board's keys oldest first: a key moved to a later row kept its time.
        // Stable: those of one time stay in the order written.
        var byBoard: [String: [(key: StoredKey, row: Int)]] = [:]
        for f in found { byBoard[f.key.board, default: []].append(f) }
        let rows = KeyQueues()
        var out: [StoredKey] = []
        out.reserveCapacity(found.count)
        for board in byBoard.keys.sorted() {
            let keys = byBoard[board]!.enumerated().sorted { ($0.element.key.at, $0.offset) < ($1.element.key.at, $1.offset) }.map(\.element)
            rows.wrote(board: board, keys.map { .init(row: $0.row, hash: $0.key.packed.hash, rev: $0.key.rev, at: $0.key.at) })
            out += keys.map(\.key)
        }
        keyRows = rows
        return out
    }

    /// Where a journal row is encoded: kept between commits, so it is not a fresh allocation each time.
    private var journalBuffer: [UInt8] = []

    /// How many chunks the last prune decoded (for a test of what it reads).
    private(set) var chunksDecodedByLastPrune = 0

    /// Deletes a board's oldest changes up to the first one kept: the first
    /// with a rev above `bound` or committed at `cutoff` or later (the last
    /// history-per-board changes, and from the first young one on). A chunk
    /// that holds nothing to keep goes whole, judged by its columns; only the
    /// chunk the cut falls in is read, and written again with what it keeps
    /// when it is small or at least half of it goes (less waits for a later
    /// prune, so a change is rewritten a few times at most, not at every prune).
    private func prune(_ board: String, below bound: Int, olderThan cutoff: Int, _ sql: SQLiteStatements) throws(StoreError) {
        let s = sql.chunksFrom
        s.reset()
        defer { s.reset() }
        try s.bind(1, board)
        var drop: [Int] = []
        var cut: (first: Int, from: Int, last: Int, youngest: Int, keep: ArraySlice<UInt8>)?
        chunksDecodedByLastPrune = 0
        while try s.step() {
            let first = s.int(0), last = s.int(1), youngest = s.int(2)
            guard first <= bound else { break }
            if last <= bound && youngest < cutoff {
                drop.append(first)
                continue
            }
            let size = last - first + 1
            if (bound - first + 1) * 2 >= size || size <= LogPlacement.directAt {
                chunksDecodedByLastPrune += 1
                let blob = s.blob(3)
                // A change without a record (logged before the store kept history) has an `at` of 0: old.
                if let kept = try LogChunk.firstKept(in: blob, board: board, { rev, at in rev > bound || at >= cutoff }), kept.offset > 0 {
                    cut = (first, kept.rev, last, youngest, blob[kept.offset...])
                }
            }
            break
        }
        s.reset()
        if let cut { drop.append(cut.first) }
        for first in drop {
            sql.deleteChunk.reset(); try sql.deleteChunk.bind(1, board); try sql.deleteChunk.bind(2, first); try sql.deleteChunk.run()
        }
        if let cut { try sql.chunks.write(board, first: cut.from, last: cut.last, youngest: cut.youngest, encoded: cut.keep) }
    }

    /// A write that changes nothing.
    private static let touch = "BEGIN IMMEDIATE; UPDATE meta SET value = value WHERE key = 'schema'; COMMIT"

    public func probe() throws(StoreError) {
        try walSync?.check()
        do {
            try db.execute(Self.touch)
        } catch {
            try? db.execute("ROLLBACK")
            throw error
        }
    }

    /// Stops the checkpointer, checkpoints the whole WAL into the database
    /// file and closes: as the last connection, SQLite then removes `-wal`
    /// and `-shm`, and the `.db` alone holds everything.
    public func close() {
        guard sql != nil else { return }
        _ = checkpointer.stop(deadline: .now + .seconds(5))
        sql = nil
        _ = try? db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        db.close()
        walSync?.close()
        hold?.release()
    }
}

/// The store's prepared statements, finalized together when it closes
/// (a connection with live statements cannot close).
final class SQLiteStatements {
    let upsertBoard, deleteBoard, deleteChunks, deleteChunk, chunksFrom, insertJournal, dropJournal: SQLiteStatement
    let insertKeyRow, deleteKeyRow, selectKeyRow, selectKeyRows: SQLiteStatement
    let chunks: SQLiteChunkWriter
    let selectBoards, selectCatalog: SQLiteStatement
    let history: SQLiteHistoryStatements
    /// Prepared once: `sqlite3_exec` would parse them for every commit
    /// (≈ 30 µs of a commit that follows a quiet spell, measured).
    let begin, commit: SQLiteStatement

    init(_ db: SQLiteDatabase, staged: WaitingChanges) throws(StoreError) {
        begin = try db.prepare("BEGIN IMMEDIATE")
        commit = try db.prepare("COMMIT")
        upsertBoard = try db.prepare("""
            INSERT INTO boards(name, epoch, rev, state) VALUES(?1, ?2, ?3, ?4)
            ON CONFLICT(name) DO UPDATE SET epoch = ?2, rev = ?3, state = ?4
            """)
        deleteBoard = try db.prepare("DELETE FROM boards WHERE name = ?1")
        deleteChunks = try db.prepare("DELETE FROM chunks WHERE board = ?1")
        chunks = try SQLiteChunkWriter(db)
        deleteChunk = try db.prepare("DELETE FROM chunks WHERE board = ?1 AND first = ?2")
        chunksFrom = try db.prepare("SELECT first, last, youngest, changes FROM chunks WHERE board = ?1 ORDER BY first")
        insertJournal = try db.prepare("INSERT INTO journal(seq, runs) VALUES(?1, ?2)")
        dropJournal = try db.prepare("DELETE FROM journal WHERE seq < ?1")
        selectBoards = try db.prepare("SELECT name, epoch, rev, state FROM boards ORDER BY name")
        selectCatalog = try db.prepare("SELECT name, epoch, rev FROM boards ORDER BY name")
        // A key is written once; a repeat of a key is answered by the hub and never reaches the store.
        insertKeyRow = try db.prepare("INSERT INTO key_commits(count, keys) VALUES(?1, ?2)")
        deleteKeyRow = try db.prepare("DELETE FROM key_commits WHERE rowid = ?1")
        selectKeyRow = try db.prepare("SELECT keys FROM key_commits WHERE rowid = ?1")
        selectKeyRows = try db.prepare("SELECT rowid, keys FROM key_commits ORDER BY rowid")
        history = try SQLiteHistoryStatements(db, staged: staged)
    }
}
