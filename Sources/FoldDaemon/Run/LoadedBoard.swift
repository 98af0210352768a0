import FoldCore
import FoldHub

/// A board read from the store at start-up, as values that may cross to the service thread.
struct LoadedBoard: Sendable {
    var name: String
    var epoch: String
    var rev: Int
    var board: Board
    var changes: [StoredChange]
    /// Its kept action keys, oldest first.
    var keys: [StoredKey] = []

    /// Reads every board and its kept changes. Limits and item rules are not
    /// re-applied (`Board(trusted:)`): what was accepted once stays readable.
    static func loadAll(from store: any BoardStore, history: Int, logger: Logger) throws(StoreError) -> [LoadedBoard] {
        var out: [LoadedBoard] = []
        let keys = Dictionary(grouping: try store.loadKeys(), by: \.board)
        for stored in try store.loadBoards() {
            let board: Board
            do {
                board = try Board(trusted: JSONParser.parse(stored.state, maxDepth: 256))
            } catch {
                logger.error("board '\(stored.name)' in the store is unreadable and is skipped: \(error)")
                continue
            }
            let changes = try store.loadChanges(board: stored.name, after: max(0, stored.rev - history))
            out.append(LoadedBoard(name: stored.name, epoch: stored.epoch, rev: stored.rev, board: board, changes: changes,
                                   keys: keys[stored.name] ?? []))
        }
        return out
    }

    func state(history: Int, keysPerBoard: Int) -> BoardState {
        let b = BoardState(name: name, epoch: epoch, rev: rev, board: board, changes: changes, history: history)
        b.remember(keys, cap: keysPerBoard)
        return b
    }
}
