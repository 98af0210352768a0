/// The figures of one measured phase (a run, or one ramp step).
struct PhaseResult {
    var rate = 0.0
    var seconds = 0.0
    var subscribers = 0
    var sent = 0
    var expected = 0
    var delivered = 0
    var incompleteConnections = 0
    var deliveriesPerSecond = 0.0
    var p50 = 0.0, p90 = 0.0, p99 = 0.0, max = 0.0, mean = 0.0
    /// Latency counted from each change's scheduled send time.
    var scheduledP99 = 0.0, scheduledMax = 0.0
    var acks = 0, errors = 0, resyncs = 0, gaps = 0, dups = 0, closed = 0
    var lateSends = 0
    var maxLagMs = 0.0
    var framesIn = 0, messagesIn = 0
    var averagePatchBytes = 0
    /// epoll: wall time outside epoll_wait; lws: the process's CPU time (both / wall).
    var benchBusyPercent = 0.0
    /// The benchmark process's CPU time (user + system) / wall time, either client.
    var benchCPUPercent = 0.0
    var benchBusyMeaning = "outside epoll_wait"
    var daemonCPUSeconds: Double?
    /// Busy time of the server's core over the phase (`--server-core`).
    var serverCoreSeconds: Double?
    var daemonRSSMiB: Double?
    var daemonPeakRSSMiB: Double?
    /// The publisher's daemon's commits over the phase (nil: not a foldsyncd, or no /metrics).
    var commits: CommitTimes.Phase?

    var completeness: Double { expected == 0 ? 100 : 100 * Double(delivered) / Double(expected) }
    var complete: Bool { delivered >= expected && gaps == 0 && resyncs == 0 && expected > 0 }
    /// The ramp's criterion: complete delivery and p99 under 100 ms.
    var passes: Bool { complete && p99 < 100 }

    var daemonCPUMicrosPerDelivery: Double? {
        guard let c = daemonCPUSeconds, delivered > 0 else { return nil }
        return c * 1e6 / Double(delivered)
    }

    var serverCoreMicrosPerDelivery: Double? {
        guard let c = serverCoreSeconds, delivered > 0 else { return nil }
        return c * 1e6 / Double(delivered)
    }
}
