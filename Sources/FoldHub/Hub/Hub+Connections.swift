import FoldCore

extension Hub {
    /// Upgrade admission: the origin, then the connection limits. Returns the
    /// HTTP status that refuses, or nil. Asked before `opened`.
    public func admit(headers: [String: String], peer: String) -> Int? {
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
        config.perIPCountsLoopback || !DaemonConfig.isLoopback(peer)
    }

    /// The daemon's own origin (the page it served), or one configured.
    func originAllowed(_ origin: String, host: String?) -> Bool {
        if let host, origin == (config.tls ? "https://" : "http://") + host { return true }
        return config.allowOrigins.contains(origin)
    }

    func opened(_ id: UInt64, peer: String, headers: [String: String], batching: Bool) {
        let s = Session(id: id, peer: peer, burst: config.actionBurst, now: now)
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
        if s.countedPerIP, let n = connectionsPerIP[s.peerIP] { connectionsPerIP[s.peerIP] = n > 1 ? n - 1 : nil }
        logger.debug("connection \(s.name) closed")
    }

    /// A token bucket per connection: `max-actions-per-second` sustained,
    /// `action-burst` at once. True when the message may proceed.
    func takeToken(_ s: Session) -> Bool {
        let elapsed = Double(now &- s.bucketUpdated) / 1e9
        s.bucketUpdated = now
        s.bucket = min(Double(config.actionBurst), s.bucket + elapsed * Double(config.maxActionsPerSecond))
        guard s.bucket >= 1 else { return false }
        s.bucket -= 1
        return true
    }
}
