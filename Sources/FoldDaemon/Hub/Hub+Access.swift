import FoldCore
import FoldTransport

extension Hub {
    /// Upgrade admission: the origin, then the connection limits. Returns the
    /// HTTP status that refuses, or nil.
    func admit(path: String, headers: [String: String], peer: String) -> Int? {
        if let origin = headers["origin"], !originAllowed(origin, host: headers["host"]) {
            metrics.upgradesRefused["origin", default: 0] += 1
            return 403
        }
        if sessions.count >= config.maxConnections {
            metrics.upgradesRefused["max-connections", default: 0] += 1
            return 503
        }
        if countsPerIP(peer), connectionsPerIP[peer, default: 0] >= config.maxConnectionsPerIP {
            metrics.upgradesRefused["max-connections-per-ip", default: 0] += 1
            return 503
        }
        return nil
    }

    /// Loopback peers are one address for every local client (a proxy, the
    /// benchmark), so they are not counted unless configured.
    func countsPerIP(_ peer: String) -> Bool {
        config.perIPCountsLoopback || !ConfigSources.isLoopback(peer)
    }

    /// The daemon's own origin (the page it served), or one configured.
    func originAllowed(_ origin: String, host: String?) -> Bool {
        if let host, origin == (config.transport.tls ? "https://" : "http://") + host { return true }
        return config.allowOrigins.contains(origin)
    }

    /// Credentials presented with the upgrade: `Authorization: Bearer`, a
    /// `token.SECRET` subprotocol offer, or `?token=` when allowed.
    func upgradeToken(_ c: Connection) -> String? {
        if let auth = c.upgradeHeaders["authorization"], let secret = Self.bearer(auth) { return secret }
        if let offer = c.upgradeHeaders["sec-websocket-protocol"] {
            for p in offer.split(separator: ",") {
                let t = p.trimmingCharacters(in: .whitespaces)
                if t.hasPrefix("token."), t.count > 6 { return String(t.dropFirst(6)) }
            }
        }
        if config.allowQueryToken, let q = c.upgradeHeaders["query"] {
            for pair in q.split(separator: "&") where pair.hasPrefix("token=") { return String(pair.dropFirst(6)) }
        }
        return nil
    }

    static func bearer(_ header: String) -> String? {
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        return parts[1].trimmingCharacters(in: .whitespaces)
    }

    /// Sets up a new session's identity: with tokens configured, one
    /// presented at the upgrade, or a deadline to present one.
    func authenticateOnOpen(_ s: Session) {
        guard !config.access.isAnonymous else { return }
        if let secret = upgradeToken(s.connection), let token = config.access.authenticate(secret) {
            grant(token, to: s)
        } else {
            s.authDeadlineNs = Self.nowNs() + UInt64(config.authTimeout) * 1_000_000_000
            unauthenticated.insert(s.connection.id)
            armAuthTimer()
        }
    }

    /// The `auth` message.
    func authenticate(_ s: Session, secret: String) {
        guard !config.access.isAnonymous else { return }
        guard let token = config.access.authenticate(secret) else {
            metrics.authFailures += 1
            refuse(s, WireError(.forbidden, "unknown token"))
            return
        }
        grant(token, to: s)
    }

    func grant(_ token: AccessToken, to s: Session) {
        s.token = token
        s.authDeadlineNs = nil
        unauthenticated.remove(s.connection.id)
        s.connection.send(OutFrame(ServerMessage.authenticated(name: token.name, permissions: token.permissions, boards: token.boards)))
    }

    /// May this session do `p` on `board`? Everyone may when no token is configured.
    func permits(_ s: Session, _ p: Permission, board: String) -> Bool {
        if config.access.isAnonymous { return true }
        return s.token?.allows(p, board: board) ?? false
    }

    /// The same for an HTTP request: the token it proved (nil when no token
    /// is configured), or the refusal (401 or 403).
    func httpAccess(_ r: HTTPRequest, _ p: Permission, board: String?) -> HTTPAccess {
        if config.access.isAnonymous { return .allowed(nil) }
        guard let secret = r.headers["authorization"].flatMap(Self.bearer), let token = config.access.authenticate(secret) else {
            metrics.authFailures += 1
            var resp = HTTPReplies.error(.forbidden, "a valid token is required (Authorization: Bearer ...)")
            resp.status = 401
            resp.headers.append(("www-authenticate", "Bearer"))
            return .denied(resp)
        }
        guard token.allows(p, board: board) else {
            return .denied(HTTPReplies.error(.forbidden, "token '\(token.name)' may not do that\(board.map { " on '\($0)'" } ?? "")"))
        }
        return .allowed(token)
    }

    /// Only the refusal, for requests that need nothing else from the token.
    func httpDenial(_ r: HTTPRequest, _ p: Permission, board: String?) -> HTTPResponse? {
        if case .denied(let denial) = httpAccess(r, p, board: board) { return denial }
        return nil
    }

    /// A token bucket per connection: `max-actions-per-second` sustained,
    /// `action-burst` at once. True when the message may proceed.
    func takeToken(_ s: Session) -> Bool {
        let now = Self.nowNs()
        let elapsed = Double(now &- s.bucketUpdatedNs) / 1e9
        s.bucketUpdatedNs = now
        s.bucket = min(Double(config.actionBurst), s.bucket + elapsed * Double(config.maxActionsPerSecond))
        guard s.bucket >= 1 else { return false }
        s.bucket -= 1
        return true
    }

    /// Closes sessions that did not authenticate in time; runs once a
    /// second, only while some are waiting.
    func armAuthTimer() {
        guard !authTimerArmed else { return }
        authTimerArmed = true
        server.schedule(afterMicroseconds: 1_000_000) { [weak self] in
            guard let self else { return }
            self.authTimerArmed = false
            let now = Self.nowNs()
            for id in self.unauthenticated {
                guard let s = self.sessions[id], let deadline = s.authDeadlineNs else {
                    self.unauthenticated.remove(id)
                    continue
                }
                if now >= deadline {
                    self.unauthenticated.remove(id)
                    self.metrics.authTimeouts += 1
                    s.connection.close(code: 1008, reason: "no valid token within \(self.config.authTimeout)s", flush: true, deadlineSeconds: 2)
                }
            }
            if !self.unauthenticated.isEmpty { self.armAuthTimer() }
        }
    }

    /// After a reload: sessions keep their token by name, if it still exists.
    func refreshGrants() {
        for s in sessions.values {
            guard let name = s.token?.name else { continue }
            s.token = config.access.tokens.first { $0.name == name }
        }
    }
}

/// What an HTTP request's credentials allow.
enum HTTPAccess {
    /// The token it proved; nil when no token is configured.
    case allowed(AccessToken?)
    case denied(HTTPResponse)
}
