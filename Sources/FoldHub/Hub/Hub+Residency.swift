import FoldCore

/// Boards read on first use and let go when unused (`Residency`): what the
/// hub does with its answers.
extension Hub {
    /// True when `board` is not in memory but in the store: `waiter` then
    /// waits for it (the reader is asked once). A board in memory is marked used.
    func waitsForBoard(_ board: String, _ waiter: Residency.Waiter) -> Bool {
        if let b = boards[board] {
            used(b)
            return false
        }
        guard residency.isCold(board) else { return false }
        if residency.wait(for: board, waiter) { askToRead(board) }
        return true
    }

    /// A connection's message: handled now, or held behind a board being read.
    func receive(_ message: ClientMessage, from s: Session) {
        var notInMemory: String?
        if let name = message.board {
            if let b = boards[name] {
                used(b)
                // The common case, with one look-up: a board in memory, nothing held anywhere.
                if residency.holdsNothing { return dispatch(message, from: s) }
            } else {
                // A board is read for a connection that may do something on it;
                // any other is refused now (unless it must wait its turn).
                if !residency.holds(s.id), !mayRead(name, for: s) { return dispatch(message, from: s) }
                notInMemory = name
            }
        } else if residency.holdsNothing {
            return dispatch(message, from: s)
        }
        switch residency.hold(message, from: s.id, notInMemory: notInMemory) {
        case .go: dispatch(message, from: s)
        case .held: break
        case .read(let board): askToRead(board)
        }
    }

    /// Whether a connection's message may have `board` read from the store:
    /// with tokens configured, only when its identity is granted anything
    /// on it. What could only be refused is refused without the read.
    func mayRead(_ board: String, for s: Session) -> Bool {
        settings.isOpen || (s.identity?.allows([], board: board) ?? false)
    }

    func used(_ b: BoardState) {
        b.lastUse = now
        if !b.unloadArmed { armUnload(b, at: now.adding(seconds: settings.boardIdle)) }
    }

    func armUnload(_ b: BoardState, at t: Instant) {
        b.unloadArmed = true
        arm(.unload(b.name), at: t)
    }

    private func askToRead(_ board: String) {
        metrics.boardReads += 1
        emit(.readBoard(board: board, history: settings.retention.historyPerBoard))
    }

    /// The reader's answer: the board comes into memory (or is gone), and
    /// what waited for it goes on, in order.
    func boardRead(_ name: String, _ load: BoardLoad) {
        var failure: String?
        switch load {
        case .loaded(let epoch, let rev, let board, let changes, let keys):
            let (entry, waiters) = residency.answered(name, staysCold: false)
            let b = BoardState(name: name, epoch: epoch, rev: rev, board: board, changes: changes,
                               history: settings.retention.historyPerBoard)
            // A shared store's keys are read with the document: they are the store's as of that rev.
            if let keys { b.remember(keys, cap: settings.retention.actionKeysPerBoard) } else if let entry { b.keys = entry.keys }
            boards[name] = b
            used(b)
            logger.debug("board '\(name)' read at rev \(rev)")
            return resume(waiters, board: name, failure: nil)
        case .missing:
            failure = nil
        case .unreadable(let why):
            logger.error("board '\(name)' in the store is unreadable and is skipped: \(why)")
            failure = nil
        case .failed(let error):
            metrics.boardReadFailures += 1
            logger.error("cannot read board '\(name)' from the store: \(error)")
            failure = "the board could not be read from the store: \(error)"
        }
        let (_, waiters) = residency.answered(name, staysCold: failure != nil)
        resume(waiters, board: name, failure: failure)
    }

    /// Each waiter goes on: now that the board is in memory (or gone), as
    /// if it had just arrived; when the read failed, answered with an error.
    private func resume(_ waiters: [Residency.Waiter], board: String, failure: String?) {
        for w in waiters {
            switch w {
            case .session(let id):
                if let failure, let first = residency.dropFirst(for: id), let s = sessions[id] {
                    refuse(s, WireError(.internal, failure, id: Self.requestID(of: first), board: board))
                }
                drainHeld(id)
            case .http(let r):
                if let failure { emit(.respond(exchange: r.id, .error(.internal, failure))) } else { route(r) }
            case .remote(let u):
                remote(u)
            }
        }
    }

    /// A held connection's messages, in order, until one waits for another board.
    func drainHeld(_ id: UInt64) {
        let s = sessions[id]
        while true {
            switch residency.next(for: id, mayRead: { board in s.map { mayRead(board, for: $0) } ?? false }) {
            case .message(let m):
                if let s = sessions[id] { dispatch(m, from: s) }
            case .wait(let board, let read):
                if read { askToRead(board) }
                return
            case .done(let closed):
                if closed { self.closed(id) }
                return
            }
        }
    }

    /// The request id a message carries, for an error that answers it.
    static func requestID(of m: ClientMessage) -> String? {
        switch m {
        case .action(let r): r.id
        case .settle(_, _, let id): id
        case .subscribe, .unsubscribe, .auth, .view: nil
        }
    }

    /// A board unused for `board-idle` seconds, watched by nobody, with
    /// nothing of it on the way to the store or being read: only its
    /// position and keys stay (`ColdBoard`). One still in use is looked at
    /// again when it may have gone idle; one watched, when its last watcher leaves.
    func unloadIfIdle(_ name: String) {
        guard let b = boards[name] else { return }
        b.unloadArmed = false
        guard subscriptions.watchers(of: name).isEmpty else { return }
        let idleAt = b.lastUse.adding(seconds: settings.boardIdle)
        guard idleAt <= now, b.committed != nil, b.head != nil,
              b.headEpoch == b.committedEpoch, b.headRev == b.committedRev,
              !pipeline.holds(name), !pipeline.awaitingCatchUp.contains(where: { $0.board == name }), !readsPending(on: name) else {
            return armUnload(b, at: max(idleAt, now.adding(seconds: 1)))
        }
        boards[name] = nil
        residency[board: name] = ColdBoard(epoch: b.committedEpoch, rev: b.committedRev, keys: b.keys)
        metrics.boardsUnloaded += 1
        logger.debug("board '\(name)' unused for \(settings.boardIdle) s: only its position and keys are kept")
    }

    /// History or revert reads of the board not yet answered.
    private func readsPending(on name: String) -> Bool {
        reads.values.contains { $0.board == name } || readsAwaitingCommit.contains { $0.read.board == name }
            || pagesAwaitingSync.contains { $0.board == name }
    }

    /// Where a board stands, in memory or not.
    func position(of name: String) -> (epoch: String, rev: Int)? {
        if let b = boards[name] { return b.committed == nil ? nil : (b.committedEpoch, b.committedRev) }
        return residency[board: name].map { ($0.epoch, $0.rev) }
    }
}
