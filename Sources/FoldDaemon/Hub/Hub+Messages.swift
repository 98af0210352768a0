import FoldCore
import FoldTransport

extension Hub {
    /// One whole text message from a client. Anything wrong with it is
    /// answered with `error`; the connection stays.
    func handle(_ bytes: UnsafeRawBufferPointer, from s: Session) {
        metrics.messagesReceived += 1
        guard takeToken(s) else {
            metrics.limitHits["max-actions-per-second", default: 0] += 1
            refuse(s, WireError(.rateLimited, "over \(config.maxActionsPerSecond) messages per second"))
            return
        }
        let json: JSON
        do {
            json = try JSONParser.parse(bytes, maxDepth: config.limits.maxJSONDepth)
        } catch {
            refuse(s, WireError(.badRequest, "not valid JSON: \(error.message)"))
            return
        }
        switch ClientMessage.decode(json, limits: config.limits) {
        case .failure(let e):
            refuse(s, e)
        case .success(.subscribe(let board, let since)):
            guard permits(s, .read, board: board) else { return forbid(s, "subscribe", board: board, id: nil) }
            subscribe(s, to: board, since: since)
        case .success(.unsubscribe(let board)):
            unsubscribe(s, from: board)
        case .success(.action(let request)):
            guard permits(s, Permission.required(for: request.action), board: request.board) else {
                return forbid(s, request.action.name, board: request.board, id: request.id)
            }
            perform(request, reply: .socket(connection: s.connection.id, id: request.id, board: request.board), by: s.name)
        case .success(.auth(let secret)):
            // With no token configured everyone may do everything: nothing to prove.
            authenticate(s, secret: secret)
        }
    }

    func forbid(_ s: Session, _ what: String, board: String, id: String?) {
        let who = s.token.map { "token '\($0.name)'" } ?? "this connection (no valid token)"
        refuse(s, WireError(.forbidden, "\(who) may not \(what) on '\(board)'", id: id, board: board))
    }

    func refuse(_ s: Session, _ e: WireError) {
        metrics.refused[e.code.rawValue, default: 0] += 1
        s.connection.send(OutFrame(ServerMessage.error(e)))
    }

    func subscribe(_ s: Session, to name: String, since: Position?) {
        guard let b = boards[name], b.committed != nil else {
            refuse(s, WireError(.notFound, "no board '\(name)'", board: name))
            return
        }
        if !s.subscriptions.contains(name) {
            guard s.subscriptions.count < config.maxSubscriptions else {
                metrics.limitHits["max-subscriptions", default: 0] += 1
                refuse(s, WireError(.invalid, "at most \(config.maxSubscriptions) subscriptions per connection", board: name))
                return
            }
            s.subscriptions.insert(name)
            subscribers[name, default: [:]][s.connection.id] = s
            presenceChanged(name)
        }
        if let since, let missed = b.patches(after: since) {
            metrics.resumes += 1
            for f in missed { s.connection.send(f) }
        } else if let snap = b.snapshot() {
            s.connection.send(snap)
        }
    }

    func unsubscribe(_ s: Session, from name: String) {
        guard s.subscriptions.contains(name) else { return }
        removeSubscriber(s, from: name)
    }

    func removeSubscriber(_ s: Session, from name: String) {
        s.subscriptions.remove(name)
        subscribers[name]?[s.connection.id] = nil
        if subscribers[name]?.isEmpty == true { subscribers[name] = nil }
        presenceChanged(name)
    }
}
