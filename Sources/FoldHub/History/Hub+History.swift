import FoldCore

extension Hub {
    /// History reads in flight at once; more are refused (503) until some finish.
    static let maxPendingReads = 64

    /// `GET /api/boards/NAME/history?since=&before=&limit=` (an extension):
    /// read permission, then a read off the event loop.
    func readHistory(_ name: String, _ r: HubRequest) {
        func respond(_ reply: HubResponse) { emit(.respond(exchange: r.id, reply)) }
        if let denial = httpDenial(r, .read, board: name) { return respond(denial) }
        guard boards[name]?.committed != nil else { return respond(.error(.notFound, "no board '\(name)'")) }
        switch HistoryBody.parameters(r.query) {
        case .failure(let e): respond(.error(e))
        case .success(let query):
            guard startRead(.http(exchange: r.id, board: name), board: name, query: query, encodePage: true) else {
                return respond(.refusal(status: 503, code: "unavailable", "too many history reads in progress; try again"))
            }
        }
    }

    /// Hands a read to the reader; false when too many are in flight. With
    /// `committedTo`, the read waits until the board has committed that rev:
    /// the reader's connection sees only committed changes, and a revert
    /// must be carried over every change accepted before it was asked.
    func startRead(_ pending: PendingRead, board: String, query: HistoryQuery, skeletons: Bool = false, encodePage: Bool = false,
                   committedTo rev: Int = 0) -> Bool {
        guard reads.count < Self.maxPendingReads else { return false }
        let id = nextReadID
        nextReadID += 1
        reads[id] = pending
        // One more than asked: whether there is more to page through.
        var read = HistoryRead(id: id, board: board, query: HistoryQuery(query.anchor, limit: query.limit + 1), skeletonsAfterFirst: skeletons)
        read.encodePage = encodePage
        if isCommitted(board, to: rev) {
            emit(.readHistory(read))
        } else {
            readsAwaitingCommit.append((rev, read))
        }
        return true
    }

    /// True once the board's committed rev has reached `rev`, or when it never
    /// will (a failed commit rolled the head back, the board went): the
    /// read may go then and sees what there is.
    func isCommitted(_ name: String, to rev: Int) -> Bool {
        guard let b = boards[name], b.head != nil else { return true }
        return b.committedRev >= rev || b.headRev < rev
    }

    /// Hands over the held reads whose boards have committed far enough, in the order they were asked.
    func releaseReadsAwaitingCommit() {
        readsAwaitingCommit.removeAll { waiting in
            guard isCommitted(waiting.read.board, to: waiting.rev) else { return false }
            emit(.readHistory(waiting.read))
            return true
        }
    }

    /// Read, cut and encoded by the reader (`HistoryRead.run`): only the envelope is built here.
    func sendPage(_ exchange: UInt64, board name: String, entries: [UInt8], more: Bool) {
        let b = boards[name]
        emit(.respond(exchange: exchange, .json(HistoryBody.wrap(
            board: name, epoch: b?.committedEpoch ?? "", rev: b?.committedRev ?? 0, more: more, entries: entries))))
    }

    /// Sends the pages held for batches that are durable now, or that never
    /// will be (a failure refused them, so the reader saw nothing of theirs).
    func releasePagesAwaitingSync() {
        guard !pagesAwaitingSync.isEmpty else { return }
        let oldestUnsynced = pipeline.oldestUnsynced
        pagesAwaitingSync.removeAll { page in
            if let oldestUnsynced, page.after >= oldestUnsynced { return false }
            sendPage(page.exchange, board: page.board, entries: page.entries, more: page.more)
            return true
        }
    }

    /// The reader's answer to `readHistory`.
    func historyRead(_ id: UInt64, _ result: Result<HistoryAnswer, StoreError>) {
        guard let pending = reads.removeValue(forKey: id) else { return }
        switch pending {
        case .http(let exchange, let name):
            switch result {
            case .failure(let e):
                emit(.respond(exchange: exchange, .error(.internal, "the history could not be read: \(e.description)")))
            case .success(.page(let entries, let more)):
                if let after = pipeline.newestUnsynced {
                    pagesAwaitingSync.append((after, exchange, name, entries, more))
                } else {
                    sendPage(exchange, board: name, entries: entries, more: more)
                }
            case .success(.changes):
                emit(.respond(exchange: exchange, .error(.internal, "the history page came back unencoded")))
            }
        case .revert(let request, let rev, let reply, let by, let actor):
            switch result {
            case .failure(let e):
                answer(reply, error: WireError(.internal, "the history could not be read: \(e.description)", id: request.id, board: request.board))
            case .success(.changes(let read)):
                finishRevert(request, rev: rev, read: read, reply: reply, by: by, actor: actor)
            case .success(.page):
                answer(reply, error: WireError(.internal, "the history read came back as a page", id: request.id, board: request.board))
            }
        }
    }
}
