import FoldCore

/// One board's changes in a journal row, at the epoch they were made in.
struct StagedRun: Equatable {
    var board: String
    var epoch: String
    var changes: [StoredChange]
}

/// A run of one board's logged changes in consecutive revs, as one blob: how
/// the SQLite store keeps its change log (a `chunks` row, or a board's part
/// of a `journal` row). One row for a run instead of a row per change: a
/// commit then inserts one row per board it touches, or a single journal row,
/// rather than a B-tree entry per change (PERFORMANCE.md, "Bytes written
/// per change"; ARCHITECTURE.md, "The SQLite format"). Pure encoding, no I/O.
///
/// Each change: rev and `at` as varints, a flag byte (1: it has a record),
/// then length-prefixed ops, and with a record its actor, session, action,
/// inverse and summary.
enum LogChunk {
    static func encode(_ changes: [StoredChange], into out: inout [UInt8]) {
        for i in changes.indices { encode(changes, at: i, into: &out) }
    }

    /// `changes[i]`, by field: a copy of the change (or its record) would retain every field of it.
    static func encode(_ changes: [StoredChange], at i: Int, into out: inout [UInt8]) {
        varint(UInt64(changes[i].rev), into: &out)
        varint(UInt64(bitPattern: Int64(changes[i].record?.at ?? 0)), into: &out)
        bytes(changes[i].ops, into: &out)
        guard changes[i].record != nil else { out.append(0); return }
        out.append(1)
        text(changes[i].record!.actor, into: &out)
        text(changes[i].record!.session, into: &out)
        bytes(changes[i].record!.action, into: &out)
        bytes(changes[i].record!.inverse, into: &out)
        text(changes[i].record!.summary, into: &out)
    }

    /// The changes of `blob`, all of them for `board`. Throws on a blob that does not parse.
    static func decode(_ blob: [UInt8], board: String) throws(StoreError) -> [StoredChange] {
        var reader = Reader(bytes: blob)
        var out: [StoredChange] = []
        while !reader.atEnd { out.append(try reader.change(board: board)) }
        return out
    }

    /// Where the first change of `blob` that `keep` accepts (given its rev
    /// and `at`) begins, and its rev; nil when it keeps none. Reads only each
    /// change's numbers and lengths: a prune cuts a run without decoding it.
    static func firstKept(in blob: [UInt8], board: String, _ keep: (_ rev: Int, _ at: Int) -> Bool) throws(StoreError) -> (offset: Int, rev: Int)? {
        var reader = Reader(bytes: blob)
        while !reader.atEnd {
            let start = reader.at
            let rev = Int(truncatingIfNeeded: try reader.varint())
            let at = Int(Int64(bitPattern: try reader.varint()))
            if keep(rev, at) { return (start, rev) }
            try reader.skip()
            guard let flag = reader.byte() else { throw StoreError("board '\(board)': a change log run ends inside rev \(rev)") }
            if flag == 1 { for _ in 0..<5 { try reader.skip() } }
        }
        return nil
    }

    static func varint(_ value: UInt64, into out: inout [UInt8]) {
        var v = value
        while v >= 0x80 {
            out.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        out.append(UInt8(v))
    }

    static func bytes(_ b: [UInt8], into out: inout [UInt8]) {
        varint(UInt64(b.count), into: &out)
        out.append(contentsOf: b)
    }

    static func text(_ s: String, into out: inout [UInt8]) {
        varint(UInt64(s.utf8.count), into: &out)
        out.append(contentsOf: s.utf8)
    }

    /// A journal row: for each board, its name, its epoch, how many changes,
    /// and its run; into `out`, emptied first (its capacity kept).
    static func encodeJournal(_ runs: [StagedRun], into out: inout [UInt8]) {
        out.removeAll(keepingCapacity: true)
        for r in runs {
            text(r.board, into: &out)
            text(r.epoch, into: &out)
            varint(UInt64(r.changes.count), into: &out)
            encode(r.changes, into: &out)
        }
    }

    static func decodeJournal(_ blob: [UInt8]) throws(StoreError) -> [StagedRun] {
        var reader = Reader(bytes: blob)
        var out: [StagedRun] = []
        while !reader.atEnd {
            let board = try reader.text()
            let epoch = try reader.text()
            let count = try reader.varint()
            var changes: [StoredChange] = []
            for _ in 0 ..< count { changes.append(try reader.change(board: board)) }
            out.append(StagedRun(board: board, epoch: epoch, changes: changes))
        }
        return out
    }

    /// Reads what `encode` wrote; every read is bounds-checked.
    struct Reader {
        let data: [UInt8]
        var at = 0

        init(bytes: [UInt8]) { data = bytes }

        var atEnd: Bool { at >= data.count }

        mutating func byte() -> UInt8? {
            guard at < data.count else { return nil }
            defer { at += 1 }
            return data[at]
        }

        mutating func varint() throws(StoreError) -> UInt64 {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while let b = byte() {
                guard shift < 64 else { break }
                value |= UInt64(b & 0x7f) << shift
                if b < 0x80 { return value }
                shift += 7
            }
            throw StoreError("a change log run holds a malformed number")
        }

        mutating func bytes() throws(StoreError) -> [UInt8] {
            let n = try varint()
            guard n <= UInt64(data.count - at) else { throw StoreError("a change log run is cut short") }
            defer { at += Int(n) }
            return Array(data[at ..< at + Int(n)])
        }

        mutating func change(board: String) throws(StoreError) -> StoredChange {
            let rev = Int(truncatingIfNeeded: try varint())
            let at = Int(Int64(bitPattern: try varint()))
            let ops = try bytes()
            guard let flag = byte() else { throw StoreError("board '\(board)': a change log run ends inside rev \(rev)") }
            var record: ChangeRecord?
            if flag == 1 {
                record = ChangeRecord(at: at, actor: try text(), session: try text(),
                                      action: try bytes(), inverse: try bytes(), summary: try text())
            }
            return StoredChange(board: board, rev: rev, ops: ops, record: record)
        }

        /// Past a length-prefixed field.
        mutating func skip() throws(StoreError) {
            let n = try varint()
            guard n <= UInt64(data.count - at) else { throw StoreError("a change log run is cut short") }
            at += Int(n)
        }

        mutating func text() throws(StoreError) -> String {
            String(decoding: try bytes(), as: UTF8.self)
        }
    }
}
