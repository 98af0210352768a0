import FoldCore
import FoldHub
import FoldTransport

extension HubDriver {
    /// READY=1, then the watchdog and status refreshes. The watchdog is fed
    /// from an lws timer, so a stuck event loop stops the pings and systemd
    /// restarts the daemon.
    func startNotifying() {
        notifier.send("READY=1\nSTATUS=\(hub.statusLine)")
        if let interval = notifier.watchdogIntervalUs { feedWatchdog(every: interval) }
        if notifier.socketPath != nil { refreshStatus() }
    }

    private func feedWatchdog(every us: Int64) {
        guard !hub.stopping else { return }
        notifier.send("WATCHDOG=1")
        server.schedule(afterMicroseconds: us) { [weak self] in self?.feedWatchdog(every: us) }
    }

    private func refreshStatus() {
        guard !hub.stopping else { return }
        notifier.send("STATUS=\(hub.statusLine)")
        server.schedule(afterMicroseconds: 5_000_000) { [weak self] in self?.refreshStatus() }
    }

    /// The hub took (or refused) a reload: what belongs to the transport,
    /// the web root and the certificate happens here, then the report is logged.
    func reloaded(_ report: ReloadReport) {
        let logger = hub.logger
        if let why = report.refused {
            logger.error("configuration reload refused, the old one stays in force: \(why)")
            notifier.send("READY=1\nSTATUS=\(hub.statusLine)")
            return
        }
        var changed = report.changed
        server.config.maxMessageBytes = report.config.maxMessageBytes
        server.config.maxBodyBytes = report.config.maxBodyBytes
        if changed.contains(where: { $0.hasPrefix("web-root ") }) { web = StaticFiles(root: report.config.webRoot, logger: logger) }
        do {
            try server.reloadCertificates()
            if report.config.tls { changed.append("certificate re-read") }
        } catch {
            logger.error("TLS certificate not reloaded, the old one stays: \(error.description)")
        }
        logger.info("configuration reloaded" + (changed.isEmpty ? ": nothing changed" : ": " + changed.joined(separator: ", ")))
        if !report.needsRestart.isEmpty { logger.warning("needs a restart to take effect: " + report.needsRestart.joined(separator: ", ")) }
        notifier.send("READY=1\nSTATUS=\(hub.statusLine)")
    }
}
