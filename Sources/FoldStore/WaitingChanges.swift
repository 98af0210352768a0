import FoldCore
import FoldSystem

/// The changes waiting in the journal (`LogPlacement`), as committed, for the
/// history reader on its own thread: they are read from here, the rest from
/// `chunks`. The committer replaces a board's list after each commit and
/// before any of its changes is acknowledged, so a read asked after an ack
/// finds the change here or, once moved, in a chunk its transaction sees.
final class WaitingChanges: Sendable {
    private let boards = Locked<[String: [StoredChange]]>([:])

    /// Appends in place: the list is not copied unless a reader holds it at that moment.
    func apply(_ updates: [String: LogPlacement.Update]) {
        guard !updates.isEmpty else { return }
        boards.withLock { boards in
            for (name, update) in updates {
                switch update {
                case .append(let changes): boards[name, default: []].append(contentsOf: changes)
                case .replace(let changes): boards[name] = changes.isEmpty ? nil : changes
                }
            }
        }
    }

    func changes(of board: String) -> [StoredChange] {
        boards.withLock { $0[board] ?? [] }
    }
}
