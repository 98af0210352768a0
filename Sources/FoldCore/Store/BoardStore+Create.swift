extension BoardStore {
    /// For an engine used by one daemon alone, nothing else creates boards:
    /// checking, then committing, cannot race.
    public func createIfAbsent(_ board: StoredBoard) throws(StoreError) -> Bool {
        guard try !loadCatalog().contains(where: { $0.name == board.name }) else { return false }
        var batch = CommitBatch(historyLimit: .max)
        batch.boards = [board]
        try commit(batch)
        try sync()   // at start-up, before the sync thread runs
        return true
    }
}

extension BoardStore {
    /// Engines that keep nothing beside their data have nothing to flush.
    public func close() {}
}
