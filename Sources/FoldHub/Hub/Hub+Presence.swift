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

    /// Viewers are this node's subscribers plus the other nodes' (a shared store).
    func presenceDue(_ name: String) {
        let here = subscriptions.watchers(of: name).count
        emit(.sharePresence(board: name, viewers: here))
        guard let b = boards[name] else { return }
        b.lastPresence = now
        broadcast(ServerMessage.presence(board: name, viewers: here + (remoteViewers[name] ?? 0)), on: name)
    }

    /// The other nodes' counts moved: each board whose total changed tells its viewers (rate-limited as always).
    func remotePresence(_ counts: [String: Int]) {
        let changed = Set(counts.keys).union(remoteViewers.keys).filter { counts[$0] != remoteViewers[$0] }
        remoteViewers = counts.filter { $0.value > 0 }
        for name in changed.sorted() where !subscriptions.watchers(of: name).isEmpty { presenceChanged(name) }
    }
}
