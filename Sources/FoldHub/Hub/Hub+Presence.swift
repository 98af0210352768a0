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
        let watchers = subscriptions.watchers(of: name)
        let following = watchers.reduce(0) { $0 + (sessions[$1]?.following == false ? 0 : 1) }
        broadcast(ServerMessage.presence(board: name, viewers: watchers.count, following: following), on: name)
    }

    /// A `view` message: no permission needed (it changes nothing shared,
    /// which is why a read-only token may browse); each watched board's
    /// presence is refreshed when the answer changes.
    func setFollowing(_ following: Bool, for s: Session) {
        guard s.following != following else { return }
        s.following = following
        for name in subscriptions.boards(of: s.id) { presenceChanged(name) }
    }
}
