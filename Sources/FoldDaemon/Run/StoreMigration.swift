import FoldConfig
import FoldCore
import FoldHub
import FoundationEssentials

/// `foldsyncd migrate-store FROM TO`: every board of one store copied into
/// another, at the same epoch and rev with every change its log keeps, so
/// clients resume (`since`) across the move. Each board is one commit of
/// the target. Run it with the daemons stopped: a daemon writing to FROM
/// meanwhile would leave TO behind.
enum StoreMigration {
    /// Exit status: 0 copied, 1 a store failed, 2 refused (TO holds boards and
    /// `overwrite` is off, or a daemon holds TO).
    static func run(from: String, to: String, overwrite: Bool) -> Int32 {
        func say(_ line: String) { StandardError.write("foldsyncd: \(line)\n") }
        let source: any BoardStore, target: any BoardStore
        do throws(StoreOpener.Failure) {
            source = try StoreOpener.open(from, timeoutMs: 5_000, mustExist: true)
            target = try StoreOpener.open(to, timeoutMs: 5_000, holding: true)
        } catch {
            say("migrate-store: \(error.message)")
            return error.status
        }
        let names = (from: StoreURI.redacted(from), to: StoreURI.redacted(to))
        do throws(StoreError) {
            let present = try target.loadBoards().map(\.name)
            if !present.isEmpty && !overwrite {
                say("migrate-store: \(names.to) already holds \(present.count) board(s) (\(present.prefix(5).joined(separator: ", "))); "
                    + "pass --overwrite to replace boards of the same name (the others stay)")
                return 2
            }
            var copied = 0, changes = 0
            // The action keys go along, with their times: a client's retry after the move is still a repeat.
            let keys = Dictionary(grouping: try source.loadKeys(), by: \.board)
            for board in try source.loadBoards() {
                // With their records (who, when, the undo), so the history reads the same after the move.
                let log = try source.history(board: board.name, HistoryQuery(.since(0), limit: Int.max / 2))
                // No pruning (the limit is above any rev), and the old board of that name goes first.
                var batch = CommitBatch(historyLimit: Int.max / 2, now: Int(Date().timeIntervalSince1970 * 1000))
                if present.contains(board.name) { batch.deletions = [board.name] }
                batch.created = [board.name]
                batch.boards = [board]
                batch.changes = log
                batch.keys = keys[board.name] ?? []
                try target.commit(batch)
                copied += 1
                changes += log.count
                print("copied '\(board.name)': epoch \(board.epoch), rev \(board.rev), \(log.count) change(s) of history")
            }
            print("migrated \(copied) board(s) and \(changes) change(s) from \(names.from) to \(names.to)")
            return 0
        } catch {
            say("migrate-store: \(error.description)")
            return 1
        }
    }
}
