import FoldCore
import FoldTransport

extension Hub {
    /// What systemd shows in `systemctl status`.
    var statusLine: String {
        let state = storeFault.map { "store refusing writes: \($0)" } ?? "serving"
        return "\(state); \(sessions.count) connections, \(boardCount) boards"
            + (reloadError.map { "; last reload refused: \($0)" } ?? "")
    }

    /// READY=1, then the watchdog and status refreshes. The watchdog is fed
    /// from an lws timer, so a stuck event loop stops the pings and systemd
    /// restarts the daemon.
    func startNotifying() {
        notifier.send("READY=1\nSTATUS=\(statusLine)")
        if let interval = notifier.watchdogIntervalUs { feedWatchdog(every: interval) }
        if notifier.socketPath != nil { refreshStatus() }
    }

    private func feedWatchdog(every us: Int64) {
        guard !stopping else { return }
        notifier.send("WATCHDOG=1")
        server.schedule(afterMicroseconds: us) { [weak self] in self?.feedWatchdog(every: us) }
    }

    private func refreshStatus() {
        guard !stopping else { return }
        notifier.send("STATUS=\(statusLine)")
        server.schedule(afterMicroseconds: 5_000_000) { [weak self] in self?.refreshStatus() }
    }

    /// Applies a re-read configuration: everything that can change live
    /// does; the rest is logged as waiting for a restart.
    func reload(_ new: DaemonConfig) {
        var changed: [String] = []
        var later: [String] = []
        func note<T: Equatable>(_ name: String, _ a: T, _ b: T, live: Bool) {
            guard a != b else { return }
            if live { changed.append("\(name) \(a) -> \(b)") } else { later.append(name) }
        }
        let old = config
        let limitKeys: [(String, KeyPath<Limits, Int>)] = [
            ("max-boards", \.maxBoards), ("max-sections", \.maxSections), ("max-items", \.maxItems),
            ("max-title-bytes", \.maxTitleBytes), ("max-item-bytes", \.maxItemBytes), ("max-board-bytes", \.maxBoardBytes),
        ]
        for (name, path) in limitKeys { note(name, old.limits[keyPath: path], new.limits[keyPath: path], live: true) }
        note("log-level", old.logLevel.name, new.logLevel.name, live: true)
        note("web-root", old.webRoot, new.webRoot, live: true)
        note("max-queue-frames", old.maxQueueFrames, new.maxQueueFrames, live: true)
        note("max-queue-bytes", old.maxQueueBytes, new.maxQueueBytes, live: true)
        note("slow-client-timeout", old.slowClientSeconds, new.slowClientSeconds, live: true)
        note("shutdown-timeout", old.shutdownTimeout, new.shutdownTimeout, live: true)
        note("max-message-bytes", old.transport.maxMessageBytes, new.transport.maxMessageBytes, live: true)
        note("max-body-bytes", old.transport.maxBodyBytes, new.transport.maxBodyBytes, live: true)
        note("listen", old.listen, new.listen, live: false)
        note("db", old.db, new.db, live: false)
        note("event-loop", old.transport.eventLoop.rawValue, new.transport.eventLoop.rawValue, live: false)
        note("history-per-board", old.historyPerBoard, new.historyPerBoard, live: false)
        note("store-busy-timeout", old.storeBusyMs, new.storeBusyMs, live: false)
        note("ping-interval", old.transport.pingSeconds, new.transport.pingSeconds, live: false)

        if old.access != new.access { changed.append("tokens (\(new.access.tokens.count) configured)") }
        note("allow-origin", old.allowOrigins, new.allowOrigins, live: true)
        note("allow-query-token", old.allowQueryToken, new.allowQueryToken, live: true)
        note("metrics-public", old.metricsPublic, new.metricsPublic, live: true)
        note("auth-timeout", old.authTimeout, new.authTimeout, live: true)
        note("max-connections", old.maxConnections, new.maxConnections, live: true)
        note("max-connections-per-ip", old.maxConnectionsPerIP, new.maxConnectionsPerIP, live: true)
        note("per-ip-counts-loopback", old.perIPCountsLoopback, new.perIPCountsLoopback, live: true)
        note("max-actions-per-second", old.maxActionsPerSecond, new.maxActionsPerSecond, live: true)
        note("action-burst", old.actionBurst, new.actionBurst, live: true)
        note("max-subscriptions", old.maxSubscriptions, new.maxSubscriptions, live: true)
        note("tls-cert", old.transport.tlsCert, new.transport.tlsCert, live: false)
        note("tls-key", old.transport.tlsKey, new.transport.tlsKey, live: false)

        var applied = new
        applied.transport = old.transport
        applied.transport.maxMessageBytes = new.transport.maxMessageBytes
        applied.transport.maxBodyBytes = new.transport.maxBodyBytes
        applied.db = old.db
        applied.historyPerBoard = old.historyPerBoard
        applied.storeBusyMs = old.storeBusyMs
        config = applied
        server.config.maxMessageBytes = applied.transport.maxMessageBytes
        server.config.maxBodyBytes = applied.transport.maxBodyBytes
        logger = logger.withLevel(applied.logLevel)
        if old.webRoot != new.webRoot { web = StaticFiles(root: new.webRoot, logger: logger) }
        refreshGrants()
        do {
            try server.reloadCertificates()
            if applied.transport.tls { changed.append("certificate re-read") }
        } catch {
            logger.error("TLS certificate not reloaded, the old one stays: \(error.description)")
        }
        reloadError = nil
        logger.info("configuration reloaded" + (changed.isEmpty ? ": nothing changed" : ": " + changed.joined(separator: ", ")))
        if !later.isEmpty { logger.warning("needs a restart to take effect: " + later.joined(separator: ", ")) }
        notifier.send("READY=1\nSTATUS=\(statusLine)")
    }

    func reloadRefused(_ why: String) {
        reloadError = why
        logger.error("configuration reload refused, the old one stays in force: \(why)")
        notifier.send("READY=1\nSTATUS=\(statusLine)")
    }
}
