import FoldCore

extension Hub {
    /// One whole text message from a client. Anything wrong with it is
    /// answered with `error`; the connection stays.
    func handle(_ bytes: UnsafeRawBufferPointer, from s: Session) {
        metrics.messagesReceived += 1
        guard takeToken(s) else {
            metrics.limitHits["max-actions-per-second", default: 0] += 1
            // The refusal names the action's id and board when the message
            // has them, so a client can match it to what it sent (a parse
            // bounded by max-message-bytes, like any message's).
            let o = (try? JSONParser.parse(bytes, maxDepth: settings.limits.maxJSONDepth))?.objectValue
            refuse(s, WireError(.rateLimited, "over \(settings.clients.maxActionsPerSecond) messages per second",
                                id: o?["id"]?.stringValue, board: o?["board"]?.stringValue.flatMap { Names.isValid($0) ? $0 : nil }))
            return
        }
        // Most messages are flat actions: decoded without a JSON tree; anything else (and every error) the general way.
        if let request = FlatActionDecoder.decode(bytes) { return receive(.action(request), from: s) }
        let json: JSON
        do {
            json = try JSONParser.parse(bytes, maxDepth: settings.limits.maxJSONDepth)
        } catch {
            refuse(s, WireError(.badRequest, "not valid JSON: \(error.message)"))
            return
        }
        switch ClientMessage.decode(json, limits: settings.limits) {
        case .failure(let e): refuse(s, e)
        case .success(let message): receive(message, from: s)
        }
    }

    /// A message of `s`'s, in the order it came (`receive` may have held it
    /// while a board it or an earlier one names was read).
    func dispatch(_ message: ClientMessage, from s: Session) {
        switch message {
        case .subscribe(let board, let since):
            guard permits(s, .read, board: board) else { return forbid(s, "subscribe", board: board, id: nil) }
            subscribe(s, to: board, since: since)
        case .unsubscribe(let board):
            if subscriptions.contains(s.id, board) {
                subscriptions.remove(s.id, board)
                presenceChanged(board)
            }
        case .action(let request):
            guard permits(s, Permission.required(for: request.action), board: request.board) else {
                return forbid(s, request.action.name, board: request.board, id: request.id)
            }
            perform(request, reply: .socket(connection: s.id, id: request.id, board: request.board), by: s.name,
                    actor: Author(identity: s.identity, session: s.name))
        case .view(let following):
            setFollowing(following, for: s)
        case .settle(let board, let key, let id):
            // Only a writer's keys can matter: the least write permission is asked.
            guard permits(s, .fold, board: board) else { return forbid(s, "settle", board: board, id: id) }
            settle(key, on: board, reply: .socket(connection: s.id, id: id, board: board))
        case .auth(let secret):
            // With no token configured everyone may do everything: nothing to prove.
            authenticate(s, secret: secret)
        }
    }

    func forbid(_ s: Session, _ what: String, board: String, id: String?) {
        let who = s.identity.map(\.describedAsActor) ?? "this connection (no valid token)"
        refuse(s, WireError(.forbidden, "\(who) may not \(what) on '\(board)'", id: id, board: board))
    }

    func refuse(_ s: Session, _ e: WireError) {
        metrics.refused[e.code.rawValue, default: 0] += 1
        emit(.send(ids: [s.id], frame: ServerMessage.error(e)))
    }

    /// Answers with the missed patches when they are all kept, else a snapshot.
    func subscribe(_ s: Session, to name: String, since: Position?) {
        guard let b = boards[name], b.committed != nil else {
            refuse(s, WireError(.notFound, "no board '\(name)'", board: name))
            return
        }
        if !subscriptions.contains(s.id, name) {
            guard subscriptions.count(of: s.id) < settings.clients.maxSubscriptions else {
                metrics.limitHits["max-subscriptions", default: 0] += 1
                refuse(s, WireError(.invalid, "at most \(settings.clients.maxSubscriptions) subscriptions per connection", board: name))
                return
            }
            subscriptions.insert(s.id, name)
            presenceChanged(name)
        }
        if let since, let missed = b.patches(after: since) {
            metrics.resumes += 1
            for f in missed { emit(.send(ids: [s.id], frame: f)) }
        } else if let snap = b.snapshot() {
            emit(.send(ids: [s.id], frame: snap))
        }
    }
}
