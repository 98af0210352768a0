import FoldCore

/// What presenting a credential came to.
enum Proof {
    case proved(Identity, secondsLeft: Double?)
    /// A static token that matches none.
    case unknown
    /// A JWT that failed a check.
    case refused(JWTRefusal)
}

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
        if settings.web.allowQueryToken, let q = headers["query"] {
            for pair in q.split(separator: "&") where pair.hasPrefix("token=") { return String(pair.dropFirst(6)) }
        }
        return nil
    }

    static func bearer(_ header: String) -> String? {
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        return parts[1].trimmingBlanks
    }

    /// A JWT when keys are configured and the secret has a JWT's shape,
    /// else a static token. A static secret that happens to look like a JWT
    /// still matches its token. Failures are counted here, once per
    /// credential presented.
    func prove(_ secret: String) -> Proof {
        if let jwt = settings.jwt, CompactJWS.looksLikeJWT(secret) {
            switch jwt.verifier.verify(secret) {
            case .success(let v): return .proved(Identity(claims: v.claims), secondsLeft: v.secondsLeft)
            case .failure(let refusal):
                if let token = settings.access.authenticate(secret, digest: digest) { return .proved(Identity(token: token), secondsLeft: nil) }
                metrics.authFailures += 1
                metrics.jwtRefusals[refusal.check.rawValue, default: 0] += 1
                return .refused(refusal)
            }
        }
        if let token = settings.access.authenticate(secret, digest: digest) { return .proved(Identity(token: token), secondsLeft: nil) }
        metrics.authFailures += 1
        return .unknown
    }

    /// Sets up a new session's identity: with tokens configured, one
    /// presented at the upgrade, or a deadline to present one.
    func authenticateOnOpen(_ s: Session, headers: [String: String]) {
        guard !settings.isOpen else { return }
        defer { admitted = nil }
        if let a = admitted, a.header == headers["authorization"] {
            // The time left counts from the proof, however long ago the upgrade began.
            grant(a.identity, secondsLeft: a.secondsLeft.map { $0 - Double(now &- a.at) / 1e9 }, to: s)
        } else if let secret = upgradeToken(headers), case .proved(let identity, let left) = prove(secret) {
            grant(identity, secondsLeft: left, to: s)
        } else {
            arm(.auth(s.id), at: now.adding(seconds: Double(settings.clients.authTimeout)))
        }
    }

    /// The `auth` message: the first proof, or a refresh. A connection's
    /// name never changes: a refresh must carry the same `sub` (or name),
    /// else the connection is closed (1008), since a client that swaps
    /// identities mid-connection is not one the history can name.
    func authenticate(_ s: Session, secret: String) {
        guard !settings.isOpen else { return }
        switch prove(secret) {
        case .unknown:
            refuse(s, WireError(.forbidden, "unknown token"))
        case .refused(let r):
            refuse(s, WireError(.forbidden, "token refused: \(r.message)"))
        case .proved(let identity, let left):
            if let held = s.identity, held.source == .jwt || identity.source == .jwt, held.name != identity.name {
                refuse(s, WireError(.forbidden, "a new token must name the same subject ('\(held.name)'), not '\(identity.name)'"))
                dropIdentity(s)
                emit(.close(id: s.id, code: .policyViolation, reason: "token subject changed", cause: .tokenRefused, flush: true, deadlineSeconds: 2))
                return
            }
            grant(identity, secondsLeft: left, to: s)
        }
    }

    /// Gives `s` its rights, replacing any it had: subscriptions the new
    /// identity does not cover end with `forbidden`, and a JWT's expiry is
    /// armed (`authExpiring`, then the close).
    func grant(_ identity: Identity, secondsLeft: Double?, to s: Session) {
        s.identity = identity
        deadlines.remove(.auth(s.id))
        deadlines.remove(.authExpiring(s.id))
        deadlines.remove(.tokenExpiry(s.id))
        if let left = secondsLeft, let jwt = settings.jwt {
            s.expiresAt = now.adding(seconds: max(0, left))
            arm(.authExpiring(s.id), at: now.adding(seconds: max(0, left - jwt.refreshBefore)))
            arm(.tokenExpiry(s.id), at: now.adding(seconds: max(0, left + jwt.leeway)))
        } else {
            s.expiresAt = nil
        }
        endUncovered(s)
        emit(.send(ids: [s.id], frame: ServerMessage.authenticated(identity)))
    }

    /// Subscriptions `s`'s rights no longer cover end, each with `forbidden`.
    func endUncovered(_ s: Session) {
        for name in subscriptions.boards(of: s.id) where !permits(s, .read, board: name) {
            subscriptions.remove(s.id, name)
            presenceChanged(name)
            refuse(s, WireError(.forbidden, "the token no longer grants read on '\(name)': unsubscribed", board: name))
        }
    }

    func dropIdentity(_ s: Session) {
        s.identity = nil
        s.expiresAt = nil
        deadlines.remove(.authExpiring(s.id))
        deadlines.remove(.tokenExpiry(s.id))
    }

    /// The auth deadline passed without a valid token.
    func authExpired(_ id: UInt64) {
        guard sessions[id] != nil else { return }
        metrics.authTimeouts += 1
        emit(.close(id: id, code: .policyViolation, reason: "no valid token within \(settings.clients.authTimeout)s", cause: .authTimeout, flush: true, deadlineSeconds: 2))
    }

    /// `jwt-refresh-before` seconds before the token's `exp`: ask for a new one.
    func tokenExpiring(_ id: UInt64) {
        guard let s = sessions[id], let at = s.expiresAt else { return }
        let left = at > now ? Int(((Double(at - now)) / 1e9).rounded()) : 0
        emit(.send(ids: [id], frame: ServerMessage.authExpiring(inSeconds: left)))
    }

    /// `exp` plus the leeway passed without a fresh token.
    func tokenExpired(_ id: UInt64) {
        guard let s = sessions[id] else { return }
        metrics.tokenExpiries += 1
        dropIdentity(s)
        emit(.close(id: id, code: .policyViolation, reason: "token expired", cause: .tokenExpired, flush: true, deadlineSeconds: 2))
    }

    /// May this session do `p` on `board`? Everyone may when no token is configured.
    func permits(_ s: Session, _ p: Permission, board: String) -> Bool {
        if settings.isOpen { return true }
        return s.identity?.allows(p, board: board) ?? false
    }

    /// After a reload: sessions keep a static token by name, if it still
    /// exists, with its new rights; a JWT keeps what it granted until it
    /// expires (a rotated key does not end the connections it signed).
    func refreshGrants() {
        for s in sessions.values {
            guard let held = s.identity, held.source == .token else { continue }
            if let t = settings.access.tokens.first(where: { $0.name == held.name }) {
                s.identity = Identity(token: t)
            } else {
                s.identity = nil
            }
        }
    }
}
