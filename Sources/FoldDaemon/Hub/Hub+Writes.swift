import FoldCore
import FoldTransport

extension Hub {
    /// Applies an action to the head and queues it for commit; the reply
    /// (and the patch) wait for the commit.
    func perform(_ request: ActionRequest, reply: Reply, by: String?) {
        let name = request.board
        if let fault = storeFault {
            return answer(reply, error: WireError(.internal, "the store refuses writes (\(fault)); try again later", id: request.id, board: name))
        }
        guard let b = boards[name], let head = b.head else {
            if case .replace(let state) = request.action {
                return create(name, state: state, reply: reply, id: request.id)
            }
            return answer(reply, error: WireError(.notFound, "no board '\(name)'", id: request.id, board: name))
        }
        if let want = request.ifRev, want != b.headRev {
            return answer(reply, error: WireError(.conflict, "board '\(name)' is at rev \(b.headRev), not \(want)", id: request.id, board: name))
        }
        let change: Change?
        do {
            change = try head.applying(request.action, limits: config.limits)
        } catch {
            return answer(reply, error: WireError(error, id: request.id, board: name))
        }
        guard let change else {
            // A no-op changes no rev; its answer still waits behind earlier writes.
            return enqueue(PendingEntry(mutation: nil, reply: reply, board: name, rev: b.headRev))
        }
        b.head = change.board
        b.headRev += 1
        let ops = PatchOp.encode(change.ops)
        let message = OutFrame(ServerMessage.patch(board: name, epoch: b.headEpoch, rev: b.headRev, ops: ops, by: by))
        enqueue(PendingEntry(
            mutation: .change(board: name, epoch: b.headEpoch, rev: b.headRev, ops: ops, message: message, after: change.board),
            reply: reply, board: name, rev: b.headRev))
    }

    func create(_ name: String, state: Board, reply: Reply, id: String?) {
        guard boardCount < config.limits.maxBoards else {
            return answer(reply, error: WireError(.invalid, "the store already holds \(config.limits.maxBoards) boards", id: id, board: name))
        }
        let epoch = Self.newEpoch()
        if let b = boards[name] {
            b.head = state
            b.headEpoch = epoch
            b.headRev = 0
        } else {
            boards[name] = BoardState(name: name, epoch: epoch, rev: 0, board: nil, head: state)
            boards[name]!.history.capacity = config.historyPerBoard
        }
        enqueue(PendingEntry(mutation: .create(board: name, epoch: epoch, state: state), reply: reply, board: name, rev: 0))
    }

    func delete(_ name: String, reply: Reply) {
        guard storeFault == nil else {
            return answer(reply, error: WireError(.internal, "the store refuses writes (\(storeFault!))", board: name))
        }
        guard let b = boards[name], b.head != nil else {
            return answer(reply, error: WireError(.notFound, "no board '\(name)'", board: name))
        }
        b.head = nil
        enqueue(PendingEntry(mutation: .delete(board: name), reply: reply, board: name, rev: b.headRev))
    }

    static func newEpoch() -> String {
        var g = SystemRandomNumberGenerator()
        let n = g.next() as UInt64
        let hex = String(n, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    // MARK: group commit

    func enqueue(_ entry: PendingEntry) {
        pending.append(entry)
        if inFlight == nil { seal() }
    }

    /// Everything pending becomes one batch: one transaction, one fsync.
    func seal() {
        guard inFlight == nil, !pending.isEmpty else { return }
        let entries = pending
        pending = []
        var sealed = SealedBatch(id: nextBatchID, historyLimit: config.historyPerBoard)
        nextBatchID += 1
        var touched: [String] = []
        var seen: Set<String> = []
        for e in entries {
            guard let m = e.mutation else { continue }
            switch m {
            case .change(let board, let epoch, let rev, let ops, _, _):
                if boards[board]?.head != nil, boards[board]?.headEpoch == epoch {
                    sealed.changes.append(StoredChange(board: board, rev: rev, ops: ops))
                }
                if seen.insert(board).inserted { touched.append(board) }
            case .create(let board, _, _):
                if seen.insert(board).inserted { touched.append(board) }
            case .delete(let board):
                sealed.deletions.append(board)
                if seen.insert(board).inserted { touched.append(board) }
            }
        }
        for name in touched {
            guard let b = boards[name], let head = b.head else { continue }
            sealed.puts.append(.init(name: name, epoch: b.headEpoch, rev: b.headRev, board: head))
        }
        inFlight = (sealed.id, entries)
        if sealed.deletions.isEmpty && sealed.puts.isEmpty {
            // Only no-op answers: nothing to write.
            commitFinished(.committed(batch: sealed.id, seconds: 0))
            return
        }
        committer.submit(sealed)
    }

    func commitFinished(_ outcome: CommitOutcome) {
        switch outcome {
        case .committed(let id, let seconds):
            guard let flight = inFlight, flight.id == id else { return }
            inFlight = nil
            if seconds > 0 { metrics.observeCommit(seconds) }
            for e in flight.entries { apply(e) }
            seal()
        case .failed(let id, let reason):
            guard let flight = inFlight, flight.id == id else { return }
            inFlight = nil
            logger.error("commit failed, refusing writes until the store accepts them again: \(reason)")
            storeFault = reason
            metrics.commitFailures += 1
            let refused = flight.entries + pending
            pending = []
            for b in boards.values { b.rollBack() }
            boards = boards.filter { $0.value.committed != nil }
            for e in refused {
                answer(e.reply, error: WireError(.internal, "the change could not be stored: \(reason)", board: e.board))
            }
            scheduleProbe()
        case .probed(let ok, let reason):
            if ok {
                if storeFault != nil { logger.info("the store accepts writes again") }
                storeFault = nil
            } else {
                logger.debug("store still refusing writes: \(reason)")
                scheduleProbe()
            }
        }
    }

    func scheduleProbe() {
        server.schedule(afterMicroseconds: 1_000_000) { [weak self] in self?.committer.probe() }
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
                broadcast(OutFrame(ServerMessage.deleted(board: name)), on: name)
            }
        }
        answer(e.reply, rev: e.rev, board: e.board)
    }
}
