import FoldCore

/// Writes runs of a board's changes as `chunks` rows: the store's commits,
/// its prunes and the upgrade into schema 4 all go through here. A row
/// holds at most `maxBytes` (and at least one change): a history read
/// decodes whole chunks, so this bounds what a read holds beyond its page,
/// however large a commit's changes were. The buffer is kept between rows,
/// so a run of tens of KiB is not a fresh allocation (nor a copy in SQLite).
final class SQLiteChunkWriter {
    static let maxBytes = 1 << 20
    private let insert: SQLiteStatement
    private var buffer: [UInt8] = []

    init(_ db: SQLiteDatabase) throws(StoreError) {
        insert = try db.prepare("INSERT OR REPLACE INTO chunks(board, first, last, youngest, changes) VALUES(?1, ?2, ?3, ?4, ?5)")
    }

    /// `older`, then `newer`, as rows of `board`, cut at `maxBytes`.
    func write(_ board: String, _ older: [StoredChange], _ newer: [StoredChange]) throws(StoreError) {
        var first = 0, last = 0, youngest = 0
        buffer.removeAll(keepingCapacity: true)
        for list in [older, newer] {
            for i in list.indices {
                if buffer.isEmpty { (first, youngest) = (list[i].rev, 0) }
                last = list[i].rev
                youngest = max(youngest, list[i].record?.at ?? 0)
                LogChunk.encode(list, at: i, into: &buffer)
                if buffer.count >= Self.maxBytes { try row(board, first, last, youngest) }
            }
        }
        if !buffer.isEmpty { try row(board, first, last, youngest) }
    }

    /// An encoded run as it is (what a prune keeps of a chunk).
    func write(_ board: String, first: Int, last: Int, youngest: Int, encoded: ArraySlice<UInt8>) throws(StoreError) {
        buffer.removeAll(keepingCapacity: true)
        buffer.append(contentsOf: encoded)
        try row(board, first, last, youngest)
    }

    private func row(_ board: String, _ first: Int, _ last: Int, _ youngest: Int) throws(StoreError) {
        insert.reset()
        try insert.bind(1, board); try insert.bind(2, first); try insert.bind(3, last); try insert.bind(4, youngest)
        try insert.run(binding: buffer, at: 5)
        buffer.removeAll(keepingCapacity: true)
    }
}
