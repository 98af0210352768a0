import FoldCore

extension Hub {
    /// Presence goes out at most once per board per second, and a little
    /// after the change, so a crowd joining costs one message per viewer per
    /// second, not one per join.
    func presenceChanged(_ board: String) {
        guard !deadlines.contains(.presence(board)) else { return }
        let soon = now.adding(seconds: 0.2)
        let allowed = boards[board]?.lastPresence.map { $0.adding(seconds: 1) } ?? soon
        arm(.presence(board), at: max(soon, allowed))
    }

    func presenceDue(_ name: String) {
        guard let b = boards[name] else { return }
        b.lastPresence = now
        broadcast(ServerMessage.presence(board: name, viewers: subscriptions.watchers(of: name).count), on: name)
    }
}
