import FoldCore

extension Hub {
    func enqueue(_ entry: PendingEntry) {
        entry.intent = currentIntent
        entry.refusals = currentRefusals
        // An action's key is written with its answer: a change's, or a no-op's.
        if case .action(let request, _, _) = currentIntent, let key = currentKey, entry.refusal == nil, !entry.duplicate {
            entry.key = key
            entry.fingerprint = ActionKey.fingerprint(request.action, scratch: &fingerprintScratch)
        }
        if pipeline.enqueue(entry) { seal() }
    }

    /// Seals what is pending when the pipeline says so, and carries it out.
    func seal() {
        switch pipeline.seal(build: batch) {
        case .none: break
        case .commit(let sealed):
            // Handed over: a batch that fails leaves them in the store, to be forgotten again later.
            forgottenKeys.removeFirst(sealed.forgottenKeys.count)
            emit(.commit(sealed))
        // Only no-op answers: nothing to write.
        case .answer(let batch): finished(batch.entries, seconds: 0)
        }
    }

    /// A batch's contents from the boards: the changes to log, the boards to
    /// write, and (on a shared store) the positions to confirm. Called while
    /// the pipeline is being changed: it reads nothing of the pipeline.
    private func batch(_ id: UInt64, _ entries: [PendingEntry]) -> SealedBatch {
        var sealed = SealedBatch(id: id, historyLimit: settings.retention.historyPerBoard, keepMs: settings.retention.historyKeepMs)
        sealed.keyKeepMs = settings.retention.actionKeyHours * 3_600_000
        sealed.forgottenKeys = forgottenKeys
        var touched: [String] = []
        var seen: Set<String> = []
        for e in entries {
            if let key = e.key {
                if sealed.keys.isEmpty { sealed.keys.reserveCapacity(entries.count) }
                sealed.keys.append(StoredKey(board: e.board, packed: key, rev: e.void ? -1 : e.rev, fingerprint: e.fingerprint))
            }
            guard let m = e.mutation else { continue }
            switch m {
            case .change(let board, let epoch, let rev, let ops, _, _):
                // A change to a board replaced or deleted later in the batch is not logged.
                if boards[board]?.head != nil, boards[board]?.headEpoch == epoch {
                    sealed.changes.append(.init(board: board, rev: rev, ops: ops, record: e.record))
                }
            case .create(let board, _, _): sealed.created.insert(board)
            case .delete(let board): sealed.deletions.append(board)
            }
            if seen.insert(e.board).inserted { touched.append(e.board) }
        }
        for name in touched {
            guard let b = boards[name], let head = b.head else { continue }
            sealed.puts.append(.init(name: name, epoch: b.headEpoch, rev: b.headRev, board: head))
        }
        if settings.storeIsShared { sealed.checks = Self.checks(entries, besides: sealed) }
        return sealed
    }

    /// The positions a shared store must confirm: every answer judged without
    /// a change, on a board the batch does not write (a written board's
    /// position is checked by its own row lock, from the rev before its first change).
    static func checks(_ entries: [PendingEntry], besides sealed: SealedBatch) -> [PositionCheck] {
        var written = Set(sealed.puts.map(\.name))
        written.formUnion(sealed.deletions)
        var out: [PositionCheck] = []
        for e in entries where e.mutation == nil {
            guard let c = e.judgedAt, !written.contains(c.name), !out.contains(c) else { continue }
            out.append(c)
        }
        return out
    }

    /// The store's answer about a batch or a probe, carried out as the pipeline decides.
    func commitFinished(_ outcome: CommitOutcome) {
        switch outcome {
        case .written(let id):
            if pipeline.written(id) { seal() }
        case .committed(let id, let seconds):
            guard let entries = pipeline.committed(id) else { return }
            finished(entries, seconds: seconds)
        case .failed(let id, let reason):
            guard let failure = pipeline.failed(id, reason: reason, random: unitRandom()) else { return }
            releasePagesAwaitingSync()
            logger.error("commit failed, refusing writes until the store accepts them again: \(reason)")
            metrics.commitFailures += 1
            rollBackToCommitted()
            for e in failure.refused {
                answer(e.reply, error: WireError(.internal, "the change could not be stored: \(reason)", board: e.board))
            }
            arm(.probe, at: now.adding(seconds: failure.probeIn))
            refreshStatus(now: true)
            catchUpDeferred()
        case .moved(let id, let reason):
            guard let moved = pipeline.moved(id) else { return }
            // Nothing of it was written: a page held for it waits no longer.
            releasePagesAwaitingSync()
            requeue(moved, reason: reason)
        case .probed(let ok, let reason):
            switch pipeline.probed(ok: ok, reason: reason, random: unitRandom()) {
            case .ignored: break
            case .recovered:
                logger.info("the store accepts writes again")
                refreshStatus(now: true)
            case .stillRefusing(let changed, let delay):
                logger.debug("store still refusing writes: \(reason)")
                if changed { refreshStatus(now: true) }
                arm(.probe, at: now.adding(seconds: delay))
            }
        }
    }

    /// A durable batch: apply and answer its entries in order, then go on.
    private func finished(_ entries: [PendingEntry], seconds: Double) {
        if seconds > 0 { metrics.observeCommit(seconds) }
        for e in entries { apply(e) }
        releasePagesAwaitingSync()
        seal()
        catchUpDeferred()
    }

    /// Every head back to what is committed; boards that exist only as heads go.
    func rollBackToCommitted() {
        for b in boards.values { b.rollBack() }
        boards = boards.filter { $0.value.committed != nil }
    }

    /// A committed entry: move the committed position, fan out, answer.
    func apply(_ e: PendingEntry) {
        // A change's board, looked up once for its key too.
        var changed: BoardState?
        if let m = e.mutation {
            switch m {
            case .change(let name, let epoch, let rev, _, let message, let after):
                changed = boards[name]
                guard let b = changed, b.committedEpoch == epoch || b.committed == nil else { break }
                b.committed = after
                b.committedEpoch = epoch
                b.committedRev = rev
                b.history.append(message)
                metrics.changesApplied += 1
                broadcast(message, on: name)
            case .create(let name, let epoch, let state):
                guard let b = boards[name] else { break }
                b.committed = state
                b.committedEpoch = epoch
                b.committedRev = 0
                b.history.removeAll()
                metrics.changesApplied += 1
                if let snap = b.snapshot() { broadcast(snap, on: name) }
            case .delete(let name):
                guard let b = boards[name] else { break }
                b.committed = nil
                b.history.removeAll()
                if b.head == nil { boards[name] = nil }
                metrics.changesApplied += 1
                broadcast(ServerMessage.deleted(board: name), on: name)
            }
        }
        if let key = e.key, let b = changed ?? boards[e.board] {
            b.keys.remember(key, .init(rev: e.void ? -1 : e.rev, fingerprint: e.fingerprint), cap: settings.retention.actionKeysPerBoard) {
                forgottenKeys.append(KeyName(board: e.board, packed: $0, rev: $1))
            }
        }
        if pipeline.shared && e.intent != nil { metrics.observeRefusals(e.refusals) }
        if let refusal = e.refusal { return answer(e.reply, error: refusal) }
        answer(e.reply, rev: e.rev, board: e.board, duplicate: e.duplicate)
    }
}
