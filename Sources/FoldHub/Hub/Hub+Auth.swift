import FoldCore

extension Hub {
    /// Credentials presented with the upgrade: `Authorization: Bearer`, a
    /// `token.SECRET` subprotocol offer, or `?token=` when allowed.
    func upgradeToken(_ headers: [String: String]) -> String? {
        if let auth = headers["authorization"], let secret = Self.bearer(auth) { return secret }
        if let offer = headers["sec-websocket-protocol"] {
            for p in offer.split(separator: ",") {
                let t = p.trimmingBlanks
                if t.hasPrefix("token."), t.count > 6 { return String(t.dropFirst(6)) }
            }
        }
        if settings.allowQueryToken, let q = headers["query"] {
            for pair in q.split(separator: "&") where pair.hasPrefix("token=") { return String(pair.dropFirst(6)) }
        }
        return nil
    }

    static func bearer(_ header: String) -> String? {
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        return parts[1].trimmingBlanks
    }

    /// Sets up a new session's identity: with tokens configured, one
    /// presented at the upgrade, or a deadline to present one.
    func authenticateOnOpen(_ s: Session, headers: [String: String]) {
        guard !settings.access.isAnonymous else { return }
        if let secret = upgradeToken(headers), let token = settings.access.authenticate(secret, digest: digest) {
            grant(token, to: s)
        } else {
            arm(.auth(s.id), at: now.adding(seconds: Double(settings.authTimeout)))
        }
    }

    /// The `auth` message.
    func authenticate(_ s: Session, secret: String) {
        guard !settings.access.isAnonymous else { return }
        guard let token = settings.access.authenticate(secret, digest: digest) else {
            metrics.authFailures += 1
            refuse(s, WireError(.forbidden, "unknown token"))
            return
        }
        grant(token, to: s)
    }

    func grant(_ token: AccessToken, to s: Session) {
        s.token = token
        deadlines.remove(.auth(s.id))
        emit(.send(ids: [s.id], frame: ServerMessage.authenticated(name: token.name, permissions: token.permissions, boards: token.boards)))
    }

    /// The auth deadline passed without a valid token.
    func authExpired(_ id: UInt64) {
        guard sessions[id] != nil else { return }
        metrics.authTimeouts += 1
        emit(.close(id: id, code: .policyViolation, reason: "no valid token within \(settings.authTimeout)s", cause: .authTimeout, flush: true, deadlineSeconds: 2))
    }

    /// May this session do `p` on `board`? Everyone may when no token is configured.
    func permits(_ s: Session, _ p: Permission, board: String) -> Bool {
        if settings.access.isAnonymous { return true }
        return s.token?.allows(p, board: board) ?? false
    }

    /// After a reload: sessions keep their token by name, if it still exists.
    func refreshGrants() {
        for s in sessions.values {
            guard let name = s.token?.name else { continue }
            s.token = settings.access.tokens.first { $0.name == name }
        }
    }
}
