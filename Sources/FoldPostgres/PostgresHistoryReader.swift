import FoldCore

/// History reads on a session of their own (`BoardStore.historyReader`),
/// connected on first use and again after it breaks.
///
/// Used by one thread (the daemon's reader), hence `@unchecked Sendable`.
final class PostgresHistoryReader: HistoryReader, @unchecked Sendable {
    private let link: PGLink

    init(link: PGLink) { self.link = link }

    func history(board: String, _ query: HistoryQuery) throws(StoreError) -> [StoredChange] {
        try link.using { c throws(PGError) in try PostgresHistory.read(board: board, query, on: c) }
    }

    func close() { link.drop() }
}
