import FoldConfig
import FoldCore
import FoldHub
import FoldTransport

extension HubDriver {
    /// SIGHUP's re-read configuration: the options that apply live take
    /// their new values (the hub's settings, the transport's limits, the web
    /// root, the certificate), the others wait for a restart; the log says
    /// which is which.
    func reload(_ fresh: DaemonConfig, jwt: JWTSettings?) {
        let plan = ReloadPlan(from: config, to: fresh)
        config = plan.applied
        feed(.reload(plan.applied.hub(jwt: jwt)))
        let logger = hub.logger
        var changed = plan.changed
        server.config.maxMessageBytes = plan.applied.maxMessageBytes
        server.config.maxBodyBytes = plan.applied.maxBodyBytes
        server.config.corsOrigins = plan.applied.web.allowOrigins
        if plan.previous.webRoot != plan.applied.webRoot { web = StaticFiles(root: plan.applied.webRoot, logger: logger) }
        do {
            try server.reloadCertificates()
            if plan.applied.tls { changed.append("certificate re-read") }
        if let jwt { changed.append("JWT keys re-read (\(jwt.verifier.summary))") }
        } catch {
            logger.error("TLS certificate not reloaded, the old one stays: \(error.description)")
        }
        logger.info("configuration reloaded" + (changed.isEmpty ? ": nothing changed" : ": " + changed.joined(separator: ", ")))
        if !plan.needsRestart.isEmpty { logger.warning("needs a restart to take effect: " + plan.needsRestart.joined(separator: ", ")) }
    }

    /// The re-read configuration did not validate: the old one stays whole.
    func refuseReload(_ why: String) {
        feed(.reloadRefused(why))
        hub.logger.error("configuration reload refused, the old one stays in force: \(why)")
    }
}
