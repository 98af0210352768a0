import FoldCore

extension Hub {
    /// Applies another node's commits to the committed state and fans them
    /// out in rev order, as if they were this node's own.
    ///
    /// A board with writes of this node waiting for the store is left alone:
    /// its batch will commit on top of the real head or be refused, and the
    /// board is caught up (`catchUp`) once the store has answered.
    func remote(_ update: RemoteUpdate) {
        let name: String
        switch update {
        case .changes(let b, _, _), .snapshot(let b, _, _, _), .deleted(let b): name = b
        case .presence(let counts): return remotePresence(counts)
        }
        if boards[name] == nil, residency.isCold(name) {
            if residency.isReading(name) {
                _ = residency.wait(for: name, .remote(update))
            } else {
                remoteToCold(update, name)
            }
            return
        }
        if pipeline.remoteUpdate(on: name) { return }
        switch update {
        case .changes(_, let epoch, let changes): applyRemote(changes, to: name, epoch: epoch)
        case .snapshot(_, let epoch, let rev, let state): replaceRemote(name, epoch: epoch, rev: rev, state: state)
        case .deleted: deleteRemote(name)
        case .presence: break
        }
        retryAwaitingCatchUp(on: name)
    }

    /// After the store answered: ask for the boards skipped meanwhile.
    func catchUpDeferred() {
        for name in pipeline.deferredCatchUps() {
            let b = boards[name]
            emit(.catchUp(board: name, epoch: b?.committedEpoch ?? "", after: b?.committedRev ?? 0))
        }
    }

    private func applyRemote(_ changes: [StoredChange], to name: String, epoch: String) {
        // A catch-up that found the board where this node holds it: nothing to apply or to ask again.
        if changes.isEmpty { return }
        guard let b = boards[name], b.committedEpoch == epoch, var board = b.committed else {
            return emit(.catchUp(board: name, epoch: boards[name]?.committedEpoch ?? "", after: boards[name]?.committedRev ?? 0))
        }
        for c in changes where c.rev > b.committedRev {
            guard c.rev == b.committedRev + 1, let next = Self.applying(c.ops, to: board) else {
                // A gap or an unreadable change: the node needs the board as it stands.
                return emit(.catchUp(board: name, epoch: epoch, after: b.committedRev))
            }
            board = next
            b.committed = board
            b.head = board
            b.committedRev = c.rev
            b.headRev = c.rev
            let message = ServerMessage.patch(board: name, epoch: epoch, rev: c.rev, ops: c.ops, by: nil)
            b.history.append(message)
            for k in c.keys {
                b.keys.remember(k.packed, .init(rev: k.rev, fingerprint: k.fingerprint), cap: settings.retention.actionKeysPerBoard) {
                    forgottenKeys.append(KeyName(board: name, packed: $0, rev: $1))
                }
            }
            metrics.changesApplied += 1
            broadcast(message, on: name)
        }
    }

    /// Another node's commit to a board not in memory here: only its
    /// position and its keys move (the document is read when it is used).
    private func remoteToCold(_ update: RemoteUpdate, _ name: String) {
        guard var c = residency[board: name] else { return }
        switch update {
        case .changes(_, let epoch, let changes):
            let after = c.epoch == epoch ? c.rev : -1
            for change in changes where change.rev > after {
                for k in change.keys {
                    c.keys.remember(k.packed, .init(rev: k.rev, fingerprint: k.fingerprint), cap: settings.retention.actionKeysPerBoard) {
                        forgottenKeys.append(KeyName(board: name, packed: $0, rev: $1))
                    }
                }
                metrics.changesApplied += 1
            }
            c.epoch = epoch
            c.rev = max(after, changes.last?.rev ?? after)
        case .snapshot(_, let epoch, let rev, _):
            c.epoch = epoch
            c.rev = rev
            metrics.changesApplied += 1
        case .deleted:
            residency[board: name] = nil
            metrics.changesApplied += 1
            return
        case .presence:
            return
        }
        residency[board: name] = c
    }

    private func replaceRemote(_ name: String, epoch: String, rev: Int, state: Board) {
        if let b = boards[name] {
            guard b.committedEpoch != epoch || rev > b.committedRev else { return }
            b.committed = state
            b.head = state
            b.committedEpoch = epoch
            b.headEpoch = epoch
            b.committedRev = rev
            b.headRev = rev
            b.history.removeAll()
        } else if subscriptions.watchers(of: name).isEmpty, !pipeline.awaitingCatchUp.contains(where: { $0.board == name }) {
            // Created on another node, and nothing here watches the name or
            // waits for it (a request judged on it, caught up): only where it stands is kept.
            residency[board: name] = ColdBoard(epoch: epoch, rev: rev)
            metrics.changesApplied += 1
            return
        } else {
            // Subscribers here kept the name, or requests wait for it: it is held, and they get it whole.
            let b = BoardState(name: name, epoch: epoch, rev: rev, board: state, head: state)
            b.history.capacity = settings.retention.historyPerBoard
            boards[name] = b
        }
        metrics.changesApplied += 1
        if let snap = boards[name]?.snapshot() { broadcast(snap, on: name) }
    }

    private func deleteRemote(_ name: String) {
        guard let b = boards[name], b.committed != nil else { return }
        boards[name] = nil
        metrics.changesApplied += 1
        broadcast(ServerMessage.deleted(board: name), on: name)
    }

    /// `ops` (a stored change) applied to `board`; nil when they do not apply.
    /// Limits and item rules are not re-checked: the node that accepted the change checked them.
    static func applying(_ ops: [UInt8], to board: Board) -> Board? {
        guard let parsed = try? JSONParser.parse(ops, maxDepth: 256),
              let doc = try? JSONPatch.apply(parsed, to: board.json) else { return nil }
        return try? Board(trusted: doc)
    }
}

extension Hub {
    /// Another node moved a board of the refused batch first. Nothing was
    /// written: every head goes back to what is committed, the actions wait
    /// for their boards' catch-up and are then applied again on the newer
    /// state (actions are intents; `ifRev` meets the real head; a delete
    /// deletes what the board has become).
    func requeue(_ moved: CommitPipeline.Moved, reason: String) {
        rollBackToCommitted()
        metrics.commitFailures += 1
        logger.debug("batch refused by the shared store, re-applying after catch-up: \(reason)")
        for e in moved.unanswerable {
            answer(e.reply, error: WireError(.internal, "the change could not be stored: \(reason)", board: e.board))
        }
        for name in moved.catchUp {
            emit(.catchUp(board: name, epoch: boards[name]?.committedEpoch ?? "", after: boards[name]?.committedRev ?? 0))
        }
        catchUpDeferred()
    }

    /// A board whose refused requests wait for its catch-up takes new ones
    /// behind them (`CommitPipeline.holdBehindCatchUp`). True when the request was held.
    func holdBehindCatchUp(_ board: String, reply: Reply) -> Bool {
        pipeline.holdBehindCatchUp(board, {
            let e = PendingEntry(mutation: nil, reply: reply, board: board, rev: 0, intent: currentIntent)
            e.refusals = currentRefusals
            return e
        }())
    }

    /// The board's catch-up was applied: its held actions go again, in the
    /// order they came, sealed as one batch.
    func retryAwaitingCatchUp(on board: String) {
        let mine = pipeline.caughtUp(board)
        guard !mine.isEmpty else { return }
        defer {
            currentRefusals = 0
            pipeline.regrouped()
            seal()
        }
        for e in mine {
            currentRefusals = e.refusals
            switch e.intent {
            case .action(let request, let by, let actor): perform(request, reply: e.reply, by: by, actor: actor)
            case .delete(let board): delete(board, reply: e.reply)
            case .settle(let board, let key): settle(key, on: board, reply: e.reply)
            case nil: break
            }
        }
    }
}
