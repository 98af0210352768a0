import FoldCore
import FoldTransport

extension Hub {
    /// Stop accepting, let pending commits finish, send every client 1001,
    /// then stop the loop once they are gone or the timeout has passed.
    func beginShutdown() {
        guard !stopping else { return }
        stopping = true
        notifier.send("STOPPING=1")
        server.refuseNewConnections = true
        logger.info("shutting down: \(sessions.count) connections, \(pending.count + (inFlight?.entries.count ?? 0)) pending writes")
        let deadline = Self.nowNs() + UInt64(config.shutdownTimeout) * 1_000_000_000
        var closing = false
        func check() {
            let drained = inFlight == nil && pending.isEmpty
            if drained && !closing {
                closing = true
                for s in sessions.values { s.connection.close(code: 1001, reason: "server shutdown") }
            }
            if (closing && sessions.isEmpty) || Self.nowNs() >= deadline {
                server.stop()
                return
            }
            server.schedule(afterMicroseconds: 20_000) { check() }
        }
        check()
    }
}
