import FoldCore

/// A read of a board's history, done off the event loop by the reader on a
/// connection of its own (it sees what is committed); answered with `HubInput.historyRead`.
public struct HistoryRead: Sendable {
    public var id: UInt64
    public var board: String
    public var query: HistoryQuery
    /// For a revert: only the first entry whole; the later ones as the
    /// skeletons of their ops (`PatchOp.skeleton`), read a page at a time,
    /// so memory stays small however large those changes were.
    public var skeletonsAfterFirst = false
    /// For HTTP: the page is cut and encoded by the reader (`HistoryBody`),
    /// so the event loop only wraps it; `query.limit` is one more than the page's.
    public var encodePage = false

    /// Reads and, for a page, encodes: everything but the envelope, off the event loop.
    public func run(on source: any HistorySource) throws(StoreError) -> HistoryAnswer {
        let read = try Self.load(self, from: source)
        guard encodePage else { return .changes(read) }
        let (entries, more) = HistoryBody.page(read, HistoryQuery(query.anchor, limit: query.limit - 1))
        return .page(entries: HistoryBody.encodeEntries(entries), more: more)
    }

    /// Entries read from the store at first; doubled while they are small.
    public static let readChunk = 16

    /// Reads what `r` asks for, a chunk at a time. A revert's read keeps the
    /// later changes as skeletons (see `HistoryRead.skeletonsAfterFirst`); a
    /// page for HTTP stops once it holds more than `HistoryBody.maxPageBytes`
    /// (an entry may hold a whole board), so a read costs a page's bound in
    /// memory, not `limit` boards; `HistoryBody.page` then cuts it and says `more`.
    public static func load(_ r: HistoryRead, from store: any HistorySource) throws(StoreError) -> [StoredChange] {
        var out: [StoredChange] = []
        if r.skeletonsAfterFirst, case .since(var since) = r.query.anchor {
            while out.count < r.query.limit {
                let page = try store.history(board: r.board, HistoryQuery(.since(since), limit: min(50, r.query.limit - out.count)))
                guard let last = page.last else { break }
                out += out.isEmpty ? [page[0]] + HistoryRead.skeletons(Array(page.dropFirst())) : HistoryRead.skeletons(page)
                since = last.rev
            }
            return out
        }
        var anchor = r.query.anchor
        var bytes = 0
        var count = 0
        // From the latest or `before`, each chunk is older than the last: joined newest last at the end.
        var older: [[StoredChange]] = []
        var ask = readChunk
        while count < r.query.limit, bytes <= HistoryBody.maxPageBytes || count < 2 {
            let asked = min(ask, r.query.limit - count)
            let page = try store.history(board: r.board, HistoryQuery(anchor, limit: asked))
            guard let first = page.first, let last = page.last else { break }
            let pageBytes = page.reduce(0) { $0 + HistoryBody.size(of: $1) }
            bytes += pageBytes
            count += page.count
            if case .since = anchor {
                out += page
                anchor = .since(last.rev)
            } else {
                older.append(page)
                anchor = .before(first.rev)
            }
            if page.count < asked { break }
            // Small entries: ask for more at a time (a store may read whole runs to answer).
            if pageBytes * 16 < HistoryBody.maxPageBytes { ask = min(ask * 2, 1_024) }
        }
        if !older.isEmpty { out = Array(older.reversed().joined()) }
        return out
    }


    /// The entries of a page read for a revert, reduced to what it needs.
    public static func skeletons(_ page: [StoredChange]) -> [StoredChange] {
        page.map { c in
            let ops = (try? JSONPatch.decode(JSONParser.parse(c.ops, maxDepth: 512))) ?? []
            return StoredChange(board: c.board, rev: c.rev, ops: PatchOp.encode(ops.map(\.skeleton)))
        }
    }
}

/// What the reader hands back: a revert's changes, or an HTTP page already encoded.
public enum HistoryAnswer: Sendable {
    case changes([StoredChange])
    /// The `entries` array, encoded, and whether there is more to page through.
    case page(entries: [UInt8], more: Bool)
}
