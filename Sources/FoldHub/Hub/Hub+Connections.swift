import FoldCore

extension Hub {
    /// Upgrade admission: the origin, the connection limits, then a token
    /// in the `Authorization` header. Returns the answer that refuses (its
    /// status and the HTTP API's error body), or nil. Asked before `opened`.
    ///
    /// A wrong token offered as a subprotocol is not refused here: a browser
    /// cannot read a refused handshake, so it gets the upgrade, then
    /// `forbidden` (see `authenticateOnOpen`), and the page can say why.
    public func admit(headers: [String: String], peer: String) -> HubResponse? {
        if let origin = headers["origin"], !originAllowed(origin, host: headers["host"]) {
            metrics.upgradesRefused["origin", default: 0] += 1
            return .error(.forbidden, "origin \(origin) may not connect")
        }
        if let full = connectionLimitRefusal(peer: peer) { return full }
        if !settings.isOpen, let header = headers["authorization"] {
            switch Self.bearer(header).map(prove) {
            case .proved(let who, let left)?:
                // `opened` follows on this thread: it takes this proof rather than checking the signature again.
                admitted = (header, who, left, now)
            case .refused(let r)?:
                metrics.upgradesRefused["token", default: 0] += 1
                return Self.unauthorized(r)
            case .unknown?, nil:
                if Self.bearer(header) == nil { metrics.authFailures += 1 }
                metrics.upgradesRefused["token", default: 0] += 1
                return Self.unauthorized
            }
        }
        return nil
    }

    /// `max-connections` and `max-connections-per-ip`, for WebSockets and event streams alike.
    func connectionLimitRefusal(peer: String) -> HubResponse? {
        if sessions.count >= settings.clients.maxConnections {
            metrics.upgradesRefused["max-connections", default: 0] += 1
            return .refusal(status: 503, code: "unavailable", "the daemon holds its maximum of \(settings.clients.maxConnections) connections")
        }
        if countsPerIP(peer), connectionsPerIP[peer, default: 0] >= settings.clients.maxConnectionsPerIP {
            metrics.upgradesRefused["max-connections-per-ip", default: 0] += 1
            return .refusal(status: 503, code: "unavailable", "this address holds its maximum of \(settings.clients.maxConnectionsPerIP) connections")
        }
        return nil
    }

    /// Loopback peers are one address for every local client (a proxy, the
    /// benchmark), so they are not counted unless configured.
    func countsPerIP(_ peer: String) -> Bool {
        settings.clients.perIPCountsLoopback || !Loopback.contains(peer)
    }

    /// The daemon's own origin (the page it served), or one configured.
    func originAllowed(_ origin: String, host: String?) -> Bool {
        if let host, origin == (settings.tls ? "https://" : "http://") + host { return true }
        return settings.web.allowOrigins.contains(origin)
    }

    func opened(_ id: UInt64, peer: String, headers: [String: String], batching: Bool) {
        let s = Session(id: id, peer: peer, burst: settings.clients.actionBurst, now: now)
        sessions[id] = s
        if countsPerIP(peer) {
            s.countedPerIP = true
            connectionsPerIP[peer, default: 0] += 1
        }
        metrics.connectionsOpened += 1
        logger.debug("connection \(s.name) from \(peer)\(batching ? " (batching)" : "")")
        emit(.send(ids: [id], frame: ServerMessage.hello(server: "foldsyncd/\(DaemonVersion.string)", session: s.name)))
        authenticateOnOpen(s, headers: headers)
    }

    func closed(_ id: UInt64) {
        guard let s = sessions.removeValue(forKey: id) else { return }
        for name in subscriptions.removeAll(id) { presenceChanged(name) }
        deadlines.remove(.stall(id))
        deadlines.remove(.auth(id))
        deadlines.remove(.authExpiring(id))
        deadlines.remove(.tokenExpiry(id))
        if streams.remove(id) != nil, !s.streamEnded { metrics.streamsEnded[Self.readerWentAway, default: 0] += 1 }
        if s.countedPerIP, let n = connectionsPerIP[s.peerIP] { connectionsPerIP[s.peerIP] = n > 1 ? n - 1 : nil }
        logger.debug("connection \(s.name) closed")
    }

    /// A token bucket per connection: `max-actions-per-second` sustained,
    /// `action-burst` at once. True when the message may proceed.
    func takeToken(_ s: Session) -> Bool {
        let elapsed = Double(now &- s.bucketUpdated) / 1e9
        s.bucketUpdated = now
        s.bucket = min(Double(settings.clients.actionBurst), s.bucket + elapsed * Double(settings.clients.maxActionsPerSecond))
        guard s.bucket >= 1 else { return false }
        s.bucket -= 1
        return true
    }
}
