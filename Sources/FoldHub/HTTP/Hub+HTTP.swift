import FoldCore

extension Hub {
    /// The HTTP API, health, metrics and the dashboard's files, on the WebSocket port.
    func route(_ r: HubRequest) {
        let parts = r.path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        // parts[0] is "" (the path starts with "/"); a board route has its name at 3.
        let seg = Array(parts.dropFirst())
        let name = seg.count >= 3 && seg[0] == "api" && seg[1] == "boards" ? seg[2] : ""
        // A cold board is read only for a request whose token is granted
        // anything on it; any other gets its 401 or 403 without the read.
        if !name.isEmpty, r.method != "OPTIONS", residency.isCold(name),
           let denial = httpDenial(r, [], board: name) {
            metrics.httpRequests += 1
            return emit(.respond(exchange: r.id, denial))
        }
        // Counted once, when it goes on: a request for a board not in memory comes here again once it is read.
        if !name.isEmpty, r.method != "OPTIONS", waitsForBoard(name, .http(r)) { return }
        metrics.httpRequests += 1
        let shape: String
        switch seg.count {
        case 1: shape = seg[0]
        case 2: shape = seg[0] + "/" + seg[1]
        case 3 where !name.isEmpty: shape = "api/boards/*"
        case 4 where !name.isEmpty: shape = "api/boards/*/" + seg[3]
        default: shape = ""
        }
        func respond(_ reply: HubResponse) { emit(.respond(exchange: r.id, reply)) }
        switch (r.method, shape) {
        case ("GET", "healthz"):
            respond(.json(HTTPBody.health(writable: pipeline.fault == nil, boards: boardCount, connections: sessions.count)))
        case ("GET", "readyz"):
            let ok = pipeline.fault == nil && !stopping
            respond(.json(HTTPBody.ready(ok), status: ok ? 200 : 503))
        case ("GET", "metrics"):
            if !settings.web.metricsPublic, let denial = httpDenial(r, [], board: nil) { return respond(denial) }
            emit(.serveMetrics(exchange: r.id))
        case ("GET", "api/boards"):
            let who: Identity?
            switch httpAccess(r, .read, board: nil) {
            case .denied(let denial): return respond(denial)
            case .allowed(let identity, _): who = identity
            }
            let inMemory = boards.values.compactMap { b in b.committed == nil ? nil : HTTPBody.Listing(board: b.name, epoch: b.committedEpoch, rev: b.committedRev) }
            let list = (inMemory + residency.cold.map { HTTPBody.Listing(board: $0.key, epoch: $0.value.epoch, rev: $0.value.rev) })
                .filter { who?.allows(.read, board: $0.board) ?? true }.sorted { $0.board < $1.board }
            respond(.json(HTTPBody.boardList(list)))
        case ("GET", "api/boards/*"):
            if let denial = httpDenial(r, .read, board: name) { return respond(denial) }
            guard let b = boards[name], let state = b.committed else { return respond(.error(.notFound, "no board '\(name)'")) }
            respond(.json(HTTPBody.board(HTTPBody.Listing(board: name, epoch: b.committedEpoch, rev: b.committedRev), state: state)))
        case ("PUT", "api/boards/*"):
            switch httpAccess(r, .admin, board: name) {
            case .denied(let denial): return respond(denial)
            case .allowed(let who, _): putBoard(name, r, actor: Author(identity: who, session: "http"))
            }
        case ("DELETE", "api/boards/*"):
            if let denial = httpDenial(r, .admin, board: name) { return respond(denial) }
            guard Names.isValid(name) else { return respond(.error(.badRequest, "invalid board name")) }
            delete(name, reply: .httpDeleted(exchange: r.id))
        case ("POST", "api/boards/*/actions"):
            postAction(name, r)
        case ("POST", "api/boards/*/settle"):
            postSettle(name, r)
        case ("GET", "api/boards/*/events"):
            openStream(name, r)
        case ("GET", "api/boards/*/history"):
            readHistory(name, r)
        case ("OPTIONS", _):
            // A CORS preflight: what a page of an allowed origin may send
            // (the transport adds the origin itself, for allowed ones only).
            respond(HubResponse(status: 204, headers: [
                ("access-control-allow-methods", "GET, POST, PUT, DELETE"),
                ("access-control-allow-headers", "authorization, content-type, idempotency-key, last-event-id"),
                ("access-control-max-age", "600"),
            ]))
        case ("GET", _), ("HEAD", _):
            emit(.serveFile(exchange: r.id, path: r.path, ifNoneMatch: r.headers["if-none-match"]))
        default:
            let known = parts.count > 1 && ["api", "healthz", "readyz", "metrics"].contains(parts[1])
            respond(known
                ? .error(.badRequest, "\(r.method) is not supported on \(r.path)")
                : .error(.notFound, "nothing at \(r.path)"))
        }
    }

    private func parseBody(_ r: HubRequest) -> JSON? {
        do {
            return try JSONParser.parse(r.body, maxDepth: settings.limits.maxJSONDepth)
        } catch {
            emit(.respond(exchange: r.id, .error(.badRequest, "body is not valid JSON: \(error.message)")))
            return nil
        }
    }

    private func putBoard(_ name: String, _ r: HubRequest, actor: Author) {
        guard Names.isValid(name) else { return emit(.respond(exchange: r.id, .error(.badRequest, "invalid board name"))) }
        guard let json = parseBody(r) else { return }
        let board: Board
        do {
            board = try Board(json: json, limits: settings.limits)
        } catch {
            return emit(.respond(exchange: r.id, .error(WireError(error))))
        }
        perform(ActionRequest(board: name, action: .replace(board)), reply: .httpBoard(exchange: r.id), by: nil, actor: actor)
    }

    /// `{"key": K}` (or the `Idempotency-Key` header alone): see `settle`.
    private func postSettle(_ name: String, _ r: HubRequest) {
        let key: String
        if r.body.isEmpty, let header = r.headers["idempotency-key"] {
            key = header
        } else {
            guard let json = parseBody(r) else { return }
            guard let k = json["key"]?.stringValue else { return emit(.respond(exchange: r.id, .error(.badRequest, "field 'key' must be a string"))) }
            key = k
        }
        if let problem = ActionKey.problem(key) { return emit(.respond(exchange: r.id, .error(.badRequest, "key \(problem)"))) }
        guard Names.isValid(name) else { return emit(.respond(exchange: r.id, .error(.badRequest, "invalid board name"))) }
        switch httpAccess(r, .fold, board: name) {
        case .denied(let denial): emit(.respond(exchange: r.id, denial))
        case .allowed: settle(key, on: name, reply: .httpRev(exchange: r.id))
        }
    }

    private func postAction(_ name: String, _ r: HubRequest) {
        guard let json = parseBody(r) else { return }
        switch ActionRequest.decode(json, board: name, limits: settings.limits, idempotencyKey: r.headers["idempotency-key"]) {
        case .failure(let e): emit(.respond(exchange: r.id, .error(e)))
        case .success(let request):
            switch httpAccess(r, Permission.required(for: request.action), board: name) {
            case .denied(let denial): emit(.respond(exchange: r.id, denial))
            case .allowed(let who, _): perform(request, reply: .httpRev(exchange: r.id), by: nil, actor: Author(identity: who, session: "http"))
            }
        }
    }
}
