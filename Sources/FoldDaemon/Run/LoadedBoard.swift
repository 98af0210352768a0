import FoldCore
import FoldHub

/// A board read from the store at start-up, as values that may cross to the service thread.
struct LoadedBoard: Sendable {
    var name: String
    var epoch: String
    var rev: Int
    var board: Board
    var changes: [StoredChange]

    /// Reads every board and its kept changes. Limits are not re-applied:
    /// what was accepted once stays readable if limits were lowered since.
    static func loadAll(from store: any BoardStore, history: Int, logger: Logger) throws(StoreError) -> [LoadedBoard] {
        var out: [LoadedBoard] = []
        let open = openLimits
        for stored in try store.loadBoards() {
            let board: Board
            do {
                board = try Board(json: JSONParser.parse(stored.state, maxDepth: 256), limits: open)
            } catch {
                logger.error("board '\(stored.name)' in the store is unreadable and is skipped: \(error)")
                continue
            }
            let changes = try store.loadChanges(board: stored.name, after: max(0, stored.rev - history))
            out.append(LoadedBoard(name: stored.name, epoch: stored.epoch, rev: stored.rev, board: board, changes: changes))
        }
        return out
    }

    /// No limit: what the store holds was accepted once.
    static var openLimits: Limits {
        var open = Limits()
        open.maxBoards = .max; open.maxSections = .max; open.maxItems = .max
        open.maxTitleBytes = .max; open.maxItemBytes = .max; open.maxBoardBytes = .max
        return open
    }

    func state(history: Int) -> BoardState {
        BoardState(name: name, epoch: epoch, rev: rev, board: board, changes: changes, history: history)
    }
}
