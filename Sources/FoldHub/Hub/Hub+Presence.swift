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
        let watchers = subscriptions.watchers(of: name)
        let here = ViewerCount(viewers: watchers.count,
                               following: watchers.reduce(0) { $0 + (sessions[$1]?.following == false ? 0 : 1) })
        emit(.sharePresence(board: name, here))
        guard let b = boards[name] else { return }
        // The last watcher left: the board may go cold once unused for board-idle seconds.
        if watchers.isEmpty { used(b) }
        b.lastPresence = now
        let elsewhere = remoteViewers[name] ?? ViewerCount(viewers: 0, following: 0)
        broadcast(ServerMessage.presence(board: name, viewers: here.viewers + elsewhere.viewers,
                                         following: here.following + elsewhere.following), on: name)
    }

    /// The other nodes' counts moved: each board whose total changed tells its viewers (rate-limited as always).
    func remotePresence(_ counts: [String: ViewerCount]) {
        let changed = Set(counts.keys).union(remoteViewers.keys).filter { counts[$0] != remoteViewers[$0] }
        remoteViewers = counts.filter { $0.value.viewers > 0 }
        for name in changed.sorted() where !subscriptions.watchers(of: name).isEmpty { presenceChanged(name) }
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
