extension Bench {
    /// Sends unmeasured changes for `seconds` at `rate`, then adjusts the title padding.
    func warmUp(rate: Double, seconds: Double) {
        let count = Int((rate * seconds).rounded())
        guard count > 0 else { return }
        counters = Counters()
        startPublishing(rate: rate, count: count, startNs: System.nowNs())
        run(until: { !publishing }, deadlineNs: System.nowNs() + UInt64((seconds + 30) * 1e9))
        drain(quietMs: 200, maxSeconds: 5)
        adjustTitleLength()
    }

    /// One measured phase: `rate` changes/s for `seconds`, then a bounded
    /// grace for stragglers. Counts only patches of this phase's changes.
    func measure(rate: Double, seconds: Double, daemon: ObservedProcess?) -> PhaseResult {
        let count = max(1, Int((rate * seconds).rounded()))
        var r = PhaseResult()
        r.rate = rate
        r.subscribers = openSubscribers
        counters = Counters()
        latency.reset()
        scheduledLatency.reset()
        for p in peers { p.deliveries = 0 }
        lateSends = 0
        maxLagNs = 0
        // Read outside the CPU figures: the daemon's answer is not the phase's work.
        let store = config.wire == .foldsync ? config.allNodes[config.publisherNode ?? 0] : nil
        let commits0 = store.flatMap { CommitTimes.read(host: $0.host, port: $0.port) }
        let cpu0 = daemon?.cpuSeconds()
        let core0 = config.serverCore.flatMap { ObservedProcess.coreBusySeconds($0) }
        let benchCPU0 = System.processCPUNs()
        let start = System.nowNs() + 1_000_000
        measureFirstSeq = nextSeq
        measureLastSeq = nextSeq + count - 1
        measureStartNs = start
        measureIntervalNs = 1e9 / rate
        waitNs = 0
        startPublishing(rate: rate, count: count, startNs: start)
        let expected = count * r.subscribers
        run(until: { !publishing }, deadlineNs: start + UInt64((seconds * 2 + 30) * 1e9))
        run(until: { counters.deliveries >= expected }, deadlineNs: System.nowNs() + UInt64(config.grace * 1e9))
        let end = System.nowNs()
        let benchCPU = System.processCPUNs() - benchCPU0
        let cpu1 = daemon?.cpuSeconds()
        if let a = core0, let n = config.serverCore, let b = ObservedProcess.coreBusySeconds(n) { r.serverCoreSeconds = b - a }
        if let store, let a = commits0, let b = CommitTimes.read(host: store.host, port: store.port) { r.commits = b.since(a) }

        r.seconds = Double(max(lastSendNs, start) - start) / 1e9
        r.sent = pubSent
        r.expected = pubSent * r.subscribers
        r.delivered = counters.deliveries
        r.incompleteConnections = peers.reduce(0) { $0 + ($1.role == .subscriber && $1.deliveries < pubSent ? 1 : 0) }
        let span = Double(max(counters.lastDeliveryNs, lastSendNs) - start) / 1e9
        r.deliveriesPerSecond = span > 0 ? Double(r.delivered) / span : 0
        r.p50 = latency.percentileMs(0.50)
        r.p90 = latency.percentileMs(0.90)
        r.p99 = latency.percentileMs(0.99)
        r.max = latency.maxMs
        r.mean = latency.meanMs
        r.scheduledP99 = scheduledLatency.percentileMs(0.99)
        r.scheduledMax = scheduledLatency.maxMs
        r.acks = counters.acks
        r.errors = counters.errors
        r.resyncs = counters.resyncs
        r.gaps = counters.gaps
        r.dups = counters.dups
        r.closed = counters.closed
        r.lateSends = lateSends
        r.maxLagMs = Double(maxLagNs) / 1e6
        r.framesIn = counters.framesIn
        r.messagesIn = counters.messagesIn
        r.averagePatchBytes = counters.patches > 0 ? counters.patchBytes / counters.patches : 0
        let wall = end - start
        r.benchCPUPercent = wall > 0 ? 100 * Double(benchCPU) / Double(wall) : 0
        if lws != nil {
            // lws waits inside lws_service: its loop's busy share is the process's CPU time.
            r.benchBusyPercent = r.benchCPUPercent
            r.benchBusyMeaning = "process CPU / wall"
        } else {
            r.benchBusyPercent = wall > 0 ? 100 * Double(wall - min(waitNs, wall)) / Double(wall) : 0
        }
        if let cpu0, let cpu1 { r.daemonCPUSeconds = cpu1 - cpu0 }
        if let mem = daemon?.memoryMiB() {
            r.daemonRSSMiB = mem.rss
            r.daemonPeakRSSMiB = mem.peak
        }
        return r
    }

    /// Waits until nothing has arrived for `quietMs` (bounded): lets a backlog
    /// clear before the next ramp step.
    func drain(quietMs: UInt64, maxSeconds: Double) {
        lastReceiveNs = System.nowNs()
        run(until: { System.nowNs() - lastReceiveNs > quietMs * 1_000_000 },
            deadlineNs: System.nowNs() + UInt64(maxSeconds * 1e9))
    }
}
