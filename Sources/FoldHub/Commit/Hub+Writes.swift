import FoldCore

extension Hub {
    /// Applies an action to the head and queues it for commit; the reply
    /// (and the patch) wait for the commit.
    func perform(_ request: ActionRequest, reply: Reply, by: String?, actor: Author) {
        currentIntent = .action(request, by: by, actor: actor)
        defer { currentIntent = nil }
        let name = request.board
        if holdBehindCatchUp(name, reply: reply) { return }
        if let fault = pipeline.fault {
            return answer(reply, error: WireError(.internal, "the store refuses writes (\(fault)); try again later", id: request.id, board: name))
        }
        guard let b = boards[name], let head = b.head else {
            if case .replace(let state) = request.action {
                return create(name, state: state, reply: reply, id: request.id)
            }
            return answerJudged(reply, error: WireError(.notFound, "no board '\(name)'", id: request.id, board: name), on: name)
        }
        if answeredByKey(request, on: b, reply: reply) { return }
        if let want = request.ifRev, want != b.headRev {
            return answerJudged(reply, error: WireError(.conflict, "board '\(name)' is at rev \(b.headRev), not \(want)", id: request.id, board: name), on: name)
        }
        if case .revert(let rev) = request.action {
            return beginRevert(request, rev: rev, reply: reply, by: by, actor: actor)
        }
        let change: Change?
        do {
            change = try head.applying(request.action, limits: settings.limits)
        } catch {
            return answerJudged(reply, error: WireError(error, id: request.id, board: name), on: name)
        }
        accept(change, on: b, reply: reply, by: by) { change in
            RecordSource(actor: actor.name, session: actor.session, action: request.action, before: head, change: change)
        }
    }

    /// A repeat of a key this board accepted (committed, or still being
    /// committed) gets the first's answer again, after everything queued
    /// before it; the key with another action is refused. True when answered.
    func answeredByKey(_ request: ActionRequest, on b: BoardState?, reply: Reply) -> Bool {
        guard let hashed = currentKey, let b, let first = keyed(hashed, on: b) else { return false }
        let key = hashed.string
        if first.rev < 0 {
            answer(reply, error: WireError(.expired, "key '\(key)' was settled as never applied on board '\(b.name)'; an action sent with it is refused",
                                           id: request.id, board: b.name))
            return true
        }
        guard first.fingerprint == ActionKey.fingerprint(request.action, scratch: &fingerprintScratch) else {
            var e = WireError(.conflict, "key '\(key)' was already used for another action on board '\(b.name)'; a key names one action", id: request.id, board: b.name)
            e.status = 422
            answer(reply, error: e)
            return true
        }
        metrics.duplicateActions += 1
        enqueue(PendingEntry(mutation: nil, reply: reply, board: b.name, rev: first.rev, duplicate: true))
        return true
    }

    /// What `key` stands for on `b`: its first answer's rev (-1: void) and
    /// action, committed or still being committed; nil for a key not used.
    func keyed(_ key: PackedKey, on b: BoardState) -> (rev: Int, fingerprint: Int64)? {
        if let kept = b.keys.find(key) { return (kept.rev, kept.fingerprint) }
        if let entry = pipeline.entry(keyed: key, on: b.name) { return (entry.void ? -1 : entry.rev, entry.fingerprint) }
        return nil
    }

    /// `settle`: a key accepted gets its first answer again (an `ack` with
    /// `duplicate`); a key never used is written void, so the action it was
    /// sent with can never be applied, and the answer is `expired`. Either
    /// waits for the store, behind what was queued before it.
    func settle(_ key: String, on name: String, reply: Reply) {
        currentIntent = .settle(board: name, key: key)
        defer { currentIntent = nil }
        if holdBehindCatchUp(name, reply: reply) { return }
        if let fault = pipeline.fault {
            return answer(reply, error: WireError(.internal, "the store refuses writes (\(fault)); try again later", board: name))
        }
        guard let b = boards[name], b.head != nil else {
            return answerJudged(reply, error: WireError(.notFound, "no board '\(name)'", board: name), on: name)
        }
        let expired = WireError(.expired, "key '\(key)' was never applied on board '\(name)'; it is void now: an action sent with it is refused", board: name)
        if let first = keyed(currentKey ?? PackedKey(key), on: b) {
            if first.rev < 0 {
                return enqueue(PendingEntry(mutation: nil, reply: reply, board: name, rev: b.headRev, refusal: expired))
            }
            metrics.duplicateActions += 1
            return enqueue(PendingEntry(mutation: nil, reply: reply, board: name, rev: first.rev, duplicate: true))
        }
        let entry = PendingEntry(mutation: nil, reply: reply, board: name, rev: b.headRev, refusal: expired,
                                 judgedAt: PositionCheck(name: name, epoch: b.headEpoch, rev: b.headRev))
        entry.key = currentKey ?? PackedKey(key)
        entry.void = true
        enqueue(entry)
    }

    /// Moves the head by an accepted change (nil: a no-op) and queues it for
    /// commit with what its history record is made of (built off the loop).
    func accept(_ change: Change?, on b: BoardState, reply: Reply, by: String?, record: (Change) -> RecordSource) {
        guard let change else { return answerJudged(reply, error: nil, on: b.name) }
        b.head = change.board
        b.headRev += 1
        let ops = PatchOp.encode(change.ops)
        let message = ServerMessage.patch(board: b.name, epoch: b.headEpoch, rev: b.headRev, ops: ops, by: by)
        enqueue(PendingEntry(
            mutation: .change(board: b.name, epoch: b.headEpoch, rev: b.headRev, ops: ops, message: message, after: change.board),
            reply: reply, board: b.name, rev: b.headRev, record: record(change)))
    }

    func create(_ name: String, state: Board, reply: Reply, id: String?) {
        guard boardCount < settings.limits.maxBoards else {
            return answer(reply, error: WireError(.invalid, "the store already holds \(settings.limits.maxBoards) boards", id: id, board: name))
        }
        let epoch = newEpoch()
        if let b = boards[name] {
            b.head = state
            b.headEpoch = epoch
            b.headRev = 0
        } else {
            let b = BoardState(name: name, epoch: epoch, rev: 0, board: nil, head: state)
            b.history.capacity = settings.retention.historyPerBoard
            boards[name] = b
            used(b)
        }
        enqueue(PendingEntry(mutation: .create(board: name, epoch: epoch, state: state), reply: reply, board: name, rev: 0))
    }

    func delete(_ name: String, reply: Reply) {
        currentIntent = .delete(board: name)
        defer { currentIntent = nil }
        if holdBehindCatchUp(name, reply: reply) { return }
        if let fault = pipeline.fault {
            return answer(reply, error: WireError(.internal, "the store refuses writes (\(fault))", board: name))
        }
        guard let b = boards[name], b.head != nil else {
            return answerJudged(reply, error: WireError(.notFound, "no board '\(name)'", board: name), on: name)
        }
        b.head = nil
        enqueue(PendingEntry(mutation: .delete(board: name), reply: reply, board: name, rev: b.headRev))
    }

    /// An answer read off this node's copy of the board rather than made by a
    /// change: a no-op's ack (`error` nil) or a refusal that depends on the
    /// board. A no-op waits behind earlier writes, so answers keep their
    /// order. On a shared store every such answer waits in the pipeline too
    /// and is confirmed against the store's head with the next batch: a node
    /// that has not applied another node's commit yet must not answer from
    /// its stale copy (its batch is refused as moved, and the intent is
    /// judged again once the board is caught up). One node's own store is
    /// its head: refusals are given at once.
    func answerJudged(_ reply: Reply, error: WireError?, on name: String) {
        if let error, !settings.storeIsShared { return answer(reply, error: error) }
        let b = boards[name]
        let at = PositionCheck(name: name, epoch: b?.head == nil ? nil : b?.headEpoch, rev: b?.headRev ?? 0)
        enqueue(PendingEntry(mutation: nil, reply: reply, board: name, rev: at.rev, refusal: error, judgedAt: at))
    }

    /// Refuses a request on whichever channel it came.
    func answer(_ reply: Reply, error e: WireError) {
        metrics.refused[e.code.rawValue, default: 0] += 1
        switch reply {
        case .socket(let conn, let id, let board):
            guard sessions[conn] != nil else { return }
            var e = e
            e.id = e.id ?? id
            e.board = e.board ?? board
            emit(.send(ids: [conn], frame: ServerMessage.error(e)))
        case .httpRev(let x), .httpBoard(let x), .httpDeleted(let x):
            emit(.respond(exchange: x, .error(e)))
        }
    }

    /// Acknowledges a committed request (`duplicate`: a repeat of its key).
    func answer(_ reply: Reply, rev: Int, board: String, duplicate: Bool = false) {
        switch reply {
        case .socket(let conn, let id, let board):
            guard sessions[conn] != nil else { return }
            emit(.send(ids: [conn], frame: ServerMessage.ack(id: id, board: board, rev: rev, duplicate: duplicate)))
        case .httpRev(let x):
            emit(.respond(exchange: x, HubResponse(status: 200, headers: duplicate ? [("idempotent-replayed", "true")] : [],
                                                   body: HTTPBody.rev(rev, duplicate: duplicate))))
        case .httpBoard(let x):
            let epoch = boards[board]?.committedEpoch ?? ""
            emit(.respond(exchange: x, .json(HTTPBody.position(HTTPBody.Listing(board: board, epoch: epoch, rev: rev)))))
        case .httpDeleted(let x):
            emit(.respond(exchange: x, HubResponse(status: 204)))
        }
    }
}
