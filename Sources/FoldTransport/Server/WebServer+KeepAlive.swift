import FoldCore

/// The keep-alive sweep and the report of refused sockets, once a second on
/// the service thread (`WebServer.everySecond`).
extension WebServer {
    /// PINGs the peers gone quiet for `pingSeconds`; closes with 1008 those
    /// silent for `hangupSeconds` (see `KeepAlive`). A peer that does not
    /// read gets its close frame when its socket takes it, or is dropped
    /// two seconds later; it is counted as `ping-timeout` either way.
    func sweepKeepAlive(now: UInt64) {
        let rule = KeepAlive(pingSeconds: config.pingSeconds, hangUpSeconds: config.hangupSeconds)
        for c in connections.values where !c.out.isClosing && !c.out.peerClosing {
            switch rule.step(lastHeardNs: c.lastHeardNs, pingSentNs: c.pingSentNs, now: now) {
            case .none:
                continue
            case .ping:
                c.pingSentNs = now
                writer.schedulePing(c)
            case .hangUp:
                c.close(code: .policyViolation, reason: "no answer to ping within \(rule.hangUpSeconds) s",
                        cause: .pingTimeout, flush: false, deadlineSeconds: 2)
            }
        }
    }

    /// lws' refusals past its descriptor table, as one warning per interval
    /// with the count since the last, instead of one lws line per socket.
    func reportRefusals(now: UInt64) {
        let total = LWSLog.pastTable.load(ordering: .relaxed)
        counters.refusedPastDescriptorTable = total
        guard total > reportedPastTable, now &- lastRefusalReportNs >= Self.refusalReportIntervalNs || lastRefusalReportNs == 0 else { return }
        logger.warning("descriptor table full: \(total - reportedPastTable) connections closed unanswered since the last report (\(total) in all; upgrades near the limit get 503)")
        reportedPastTable = total
        lastRefusalReportNs = now
    }

    static let refusalReportIntervalNs: UInt64 = 10_000_000_000
}
