import FoldCore

/// A `BoardStore` in memory: what the hub's commits would leave on disk,
/// and a switch that makes the store refuse writes.
final class MemoryStore: BoardStore {
    var boards: [String: StoredBoard] = [:]
    var changes: [StoredChange] = []
    var keys: [StoredKey] = []
    /// While set, `commit` and `probe` throw it.
    var failure: String?

    func loadBoards() throws(StoreError) -> [StoredBoard] { boards.values.sorted { $0.name < $1.name } }

    func loadCatalog() throws(StoreError) -> [CatalogEntry] {
        try loadBoards().map { CatalogEntry(name: $0.name, epoch: $0.epoch, rev: $0.rev) }
    }

    func readBoard(_ name: String, history: Int) throws(StoreError) -> BoardRead? {
        guard let b = boards[name] else { return nil }
        return BoardRead(board: b, changes: Array(changes.filter { $0.board == name && $0.rev <= b.rev }.suffix(history)))
    }

    func loadChanges(board: String, after rev: Int) throws(StoreError) -> [StoredChange] {
        changes.filter { $0.board == board && $0.rev > rev }
    }

    func loadKeys() throws(StoreError) -> [StoredKey] { keys }

    func commit(_ batch: CommitBatch) throws(StoreError) {
        if let failure { throw StoreError(failure) }
        for name in batch.deletions {
            boards[name] = nil
            changes.removeAll { $0.board == name }
            keys.removeAll { $0.board == name }
        }
        let forgotten = Set(batch.forgottenKeys.map { "\($0.board) \($0.key)" })
        keys.removeAll { forgotten.contains("\($0.board) \($0.key)") }
        keys += batch.keys.map { var k = $0; k.at = batch.now; return k }
        for b in batch.boards { boards[b.name] = StoredBoard(name: b.name, epoch: b.epoch, rev: b.rev, state: b.encodedState) }
        changes += batch.changes
    }

    func history(board: String, _ query: HistoryQuery) throws(StoreError) -> [StoredChange] {
        let mine = changes.filter { $0.board == board }
        switch query.anchor {
        case .since(let rev): return Array(mine.filter { $0.rev > rev }.prefix(query.limit))
        case .before(let rev): return Array(mine.filter { $0.rev < rev }.suffix(query.limit))
        case .latest: return Array(mine.suffix(query.limit))
        }
    }

    func probe() throws(StoreError) {
        if let failure { throw StoreError(failure) }
    }
}

/// The memory store's history, read as a reader of its own would.
final class MemoryHistoryReader: HistoryReader, @unchecked Sendable {
    let store: MemoryStore
    init(_ store: MemoryStore) { self.store = store }
    func history(board: String, _ query: HistoryQuery) throws(StoreError) -> [StoredChange] { try store.history(board: board, query) }
    func readBoard(_ name: String, history: Int) throws(StoreError) -> BoardRead? { try store.readBoard(name, history: history) }
    func close() {}
}

extension MemoryStore {
    func historyReader() throws(StoreError) -> any HistoryReader & Sendable { MemoryHistoryReader(self) }
}
