import FoldCore

extension Hub {
    func enqueue(_ entry: PendingEntry) {
        entry.intent = currentIntent
        pipeline.pending.append(entry)
        if pipeline.inFlight == nil && !regrouping { seal() }
    }

    /// Everything pending becomes one batch: one transaction, one fsync.
    func seal() {
        guard pipeline.inFlight == nil, !pipeline.pending.isEmpty else { return }
        // No-op answers alone behind a batch still syncing wait for it (below):
        // on one node, known without building the batch each time one more arrives.
        if !pipeline.syncing.isEmpty && !settings.storeIsShared && !pipeline.pending.contains(where: { $0.mutation != nil }) { return }
        let entries = pipeline.pending
        pipeline.pending = []
        var sealed = SealedBatch(id: pipeline.nextBatchID, historyLimit: settings.historyPerBoard, keepMs: settings.historyKeepMs)
        pipeline.nextBatchID += 1
        var touched: [String] = []
        var seen: Set<String> = []
        for e in entries {
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
        pipeline.inFlight = (sealed.id, entries)
        if sealed.deletions.isEmpty && sealed.puts.isEmpty && sealed.checks.isEmpty {
            if !pipeline.syncing.isEmpty {
                // Only no-op answers, judged on changes not durable yet: they wait for the sync.
                pipeline.inFlight = nil
                pipeline.pending = entries
                return
            }
            // Only no-op answers: nothing to write.
            return commitFinished(.committed(batch: sealed.id, seconds: 0))
        }
        emit(.commit(sealed))
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

    func commitFinished(_ outcome: CommitOutcome) {
        switch outcome {
        case .written(let id):
            guard let flight = pipeline.inFlight, flight.id == id else { return }
            pipeline.inFlight = nil
            pipeline.syncing.append(flight)
            seal()
        case .committed(let id, let seconds):
            let flight: CommitPipeline.Batch
            if let first = pipeline.syncing.first, first.id == id {
                flight = pipeline.syncing.removeFirst()
            } else if pipeline.syncing.isEmpty, let f = pipeline.inFlight, f.id == id {
                flight = f
                pipeline.inFlight = nil
            } else {
                return
            }
            if seconds > 0 { metrics.observeCommit(seconds) }
            for e in flight.entries { apply(e) }
            releasePagesAwaitingSync()
            seal()
            catchUpDeferred()
        case .failed(let id, let reason):
            guard pipeline.inFlight?.id == id || pipeline.syncing.first?.id == id else { return }
            // Later batches were written over this one: none of them may be answered as stored.
            let written = pipeline.syncing.flatMap(\.entries) + (pipeline.inFlight?.entries ?? [])
            pipeline.inFlight = nil
            pipeline.syncing = []
            releasePagesAwaitingSync()
            logger.error("commit failed, refusing writes until the store accepts them again: \(reason)")
            pipeline.fault = reason
            metrics.commitFailures += 1
            // Requests held for a catch-up too: the store is failing, their answer must not wait for it.
            let refused = written + pipeline.pending + awaitingCatchUp
            pipeline.pending = []
            awaitingCatchUp = []
            for b in boards.values { b.rollBack() }
            boards = boards.filter { $0.value.committed != nil }
            for e in refused {
                answer(e.reply, error: WireError(.internal, "the change could not be stored: \(reason)", board: e.board))
            }
            pipeline.backoff.reset()
            arm(.probe, at: now.adding(seconds: pipeline.backoff.next(random: unitRandom())))
            refreshStatus(now: true)
            catchUpDeferred()
        case .moved(let id, let reason):
            guard let flight = pipeline.inFlight, flight.id == id else { return }
            pipeline.inFlight = nil
            // Nothing of it was written: a page held for it waits no longer.
            releasePagesAwaitingSync()
            requeueMoved(flight.entries, reason: reason)
        case .probed(let ok, let reason):
            if ok {
                guard pipeline.fault != nil else { return }
                logger.info("the store accepts writes again")
                pipeline.fault = nil
                refreshStatus(now: true)
            } else {
                logger.debug("store still refusing writes: \(reason)")
                if reason != pipeline.fault {
                    pipeline.fault = reason
                    refreshStatus(now: true)
                }
                arm(.probe, at: now.adding(seconds: pipeline.backoff.next(random: unitRandom())))
            }
        }
    }

    /// A committed entry: move the committed position, fan out, answer.
    func apply(_ e: PendingEntry) {
        if let m = e.mutation {
            switch m {
            case .change(let name, let epoch, let rev, _, let message, let after):
                guard let b = boards[name], b.epoch == epoch || b.committed == nil else { break }
                b.committed = after
                b.epoch = epoch
                b.rev = rev
                b.history.append(message)
                metrics.changesApplied += 1
                broadcast(message, on: name)
            case .create(let name, let epoch, let state):
                guard let b = boards[name] else { break }
                b.committed = state
                b.epoch = epoch
                b.rev = 0
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
        if let refusal = e.refusal { return answer(e.reply, error: refusal) }
        answer(e.reply, rev: e.rev, board: e.board)
    }
}
