import FoldCore
import FoldTransport

extension Hub {
    /// The HTTP API, health, metrics and the dashboard's files, on the WebSocket port.
    func route(_ r: HTTPRequest) {
        metrics.httpRequests += 1
        let parts = r.path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        // parts[0] is "" (the path starts with "/"); a board route has its name at 3.
        let seg = Array(parts.dropFirst())
        let name = seg.count >= 3 && seg[0] == "api" && seg[1] == "boards" ? seg[2] : ""
        let shape: String
        switch seg.count {
        case 1: shape = seg[0]
        case 2: shape = seg[0] + "/" + seg[1]
        case 3 where !name.isEmpty: shape = "api/boards/*"
        case 4 where !name.isEmpty: shape = "api/boards/*/" + seg[3]
        default: shape = ""
        }
        switch (r.method, shape) {
        case ("GET", "healthz"):
            server.respond(r.id, HTTPReplies.json(.object(JSONObject([
                ("status", .string("ok")), ("writable", .bool(storeFault == nil)),
                ("boards", .number(String(boardCount))), ("connections", .number(String(sessions.count))),
            ]))))
        case ("GET", "readyz"):
            let ok = storeFault == nil && !stopping
            server.respond(r.id, HTTPReplies.json(.object(JSONObject([("ready", .bool(ok))])), status: ok ? 200 : 503))
        case ("GET", "metrics"):
            if !config.metricsPublic, let denial = httpDenial(r, [], board: nil) { return server.respond(r.id, denial) }
            server.respond(r.id, HTTPResponse(
                status: 200, contentType: "text/plain; version=0.0.4; charset=utf-8",
                body: Array(metrics.render(hub: self).utf8)))
        case ("GET", "api/boards"):
            let glob: String
            switch httpAccess(r, .read, board: nil) {
            case .denied(let denial): return server.respond(r.id, denial)
            case .allowed(let token): glob = token?.boards ?? "*"
            }
            let list = boards.values.filter { $0.committed != nil && Glob.matches(glob, $0.name) }.sorted { $0.name < $1.name }.map { b in
                JSON.object(JSONObject([("board", .string(b.name)), ("epoch", .string(b.epoch)), ("rev", .number(String(b.rev)))]))
            }
            server.respond(r.id, HTTPReplies.json(.object(JSONObject([("boards", .array(list))]))))
        case ("GET", "api/boards/*"):
            if let denial = httpDenial(r, .read, board: name) { return server.respond(r.id, denial) }
            guard let b = boards[name], let state = b.committed else {
                return server.respond(r.id, HTTPReplies.error(.notFound, "no board '\(name)'"))
            }
            var body = Array(#"{"board":"#.utf8)
            JSONWriter.appendString(name, to: &body)
            body += Array(#","epoch":"#.utf8)
            JSONWriter.appendString(b.epoch, to: &body)
            body += Array(#","rev":"#.utf8)
            JSONWriter.appendInt(b.rev, to: &body)
            body += Array(#","state":"#.utf8)
            state.encode(into: &body)
            body.append(UInt8(ascii: "}"))
            server.respond(r.id, HTTPResponse(status: 200, headers: [("cache-control", "no-store")], body: body))
        case ("PUT", "api/boards/*"):
            if let denial = httpDenial(r, .admin, board: name) { return server.respond(r.id, denial) }
            putBoard(name, r)
        case ("DELETE", "api/boards/*"):
            if let denial = httpDenial(r, .admin, board: name) { return server.respond(r.id, denial) }
            guard Names.isValid(name) else { return server.respond(r.id, HTTPReplies.error(.badRequest, "invalid board name")) }
            delete(name, reply: .httpDeleted(exchange: r.id))
        case ("POST", "api/boards/*/actions"):
            postAction(name, r)
        case ("GET", _), ("HEAD", _):
            server.respond(r.id, web.serve(path: r.path, ifNoneMatch: r.headers["if-none-match"]))
        default:
            let known = parts.count > 1 && ["api", "healthz", "readyz", "metrics"].contains(parts[1])
            server.respond(r.id, known
                ? HTTPReplies.error(.badRequest, "\(r.method) is not supported on \(r.path)")
                : HTTPReplies.error(.notFound, "nothing at \(r.path)"))
        }
    }

    private func parseBody(_ r: HTTPRequest) -> JSON? {
        do {
            return try JSONParser.parse(r.body, maxDepth: config.limits.maxJSONDepth)
        } catch {
            server.respond(r.id, HTTPReplies.error(.badRequest, "body is not valid JSON: \(error.message)"))
            return nil
        }
    }

    private func putBoard(_ name: String, _ r: HTTPRequest) {
        guard Names.isValid(name) else { return server.respond(r.id, HTTPReplies.error(.badRequest, "invalid board name")) }
        guard let json = parseBody(r) else { return }
        let board: Board
        do {
            board = try Board(json: json, limits: config.limits)
        } catch {
            return server.respond(r.id, HTTPReplies.error(WireError(error)))
        }
        perform(ActionRequest(board: name, action: .replace(board)), reply: .httpBoard(exchange: r.id), by: nil)
    }

    private func postAction(_ name: String, _ r: HTTPRequest) {
        guard let json = parseBody(r) else { return }
        switch ActionRequest.decode(json, board: name, limits: config.limits) {
        case .failure(let e): server.respond(r.id, HTTPReplies.error(e))
        case .success(let request):
            if let denial = httpDenial(r, Permission.required(for: request.action), board: name) {
                return server.respond(r.id, denial)
            }
            perform(request, reply: .httpRev(exchange: r.id), by: nil)
        }
    }
}
