import FoldCore
import FoldHub
import FoldTransport

extension HubDriver {
    /// The hub took (or refused) a reload: what belongs to the transport,
    /// the web root and the certificate happens here, then the report is logged.
    func reloaded(_ report: ReloadReport) {
        let logger = hub.logger
        if let why = report.refused {
            logger.error("configuration reload refused, the old one stays in force: \(why)")
            return
        }
        var changed = report.changed
        server.config.maxMessageBytes = report.config.maxMessageBytes
        server.config.maxBodyBytes = report.config.maxBodyBytes
        if report.previous.webRoot != report.config.webRoot { web = StaticFiles(root: report.config.webRoot, logger: logger) }
        do {
            try server.reloadCertificates()
            if report.config.tls { changed.append("certificate re-read") }
        } catch {
            logger.error("TLS certificate not reloaded, the old one stays: \(error.description)")
        }
        logger.info("configuration reloaded" + (changed.isEmpty ? ": nothing changed" : ": " + changed.joined(separator: ", ")))
        if !report.needsRestart.isEmpty { logger.warning("needs a restart to take effect: " + report.needsRestart.joined(separator: ", ")) }
    }
}
