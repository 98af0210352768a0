import FoldCore

/// What the whole run found: set-up, then one phase (or a ramp's steps).
struct Report {
    var client = ClientKind.epoll
    var connections = 0
    var idle = 0
    var protocolOffered = ""
    var negotiated: [String: Int] = [:]
    var setupSeconds = 0.0
    var connectFailures = 0
    var daemonPID: Int32?
    var daemonRSSAfterSetupMiB: Double?
    var daemonCPUSetupSeconds: Double?
    var phase: PhaseResult?
    var steps: [PhaseResult] = []
    var rampBest: PhaseResult?
    /// How connections ended before the run did, by what the client saw
    /// ("closed by the daemon" alone: no close frame came first).
    var ends: [String: Int] = [:]
    var closedSilently: Int { ends["closed by the daemon"] ?? 0 }

    var negotiatedText: String {
        negotiated.sorted { $0.value > $1.value }.map { "\($0.key) x\($0.value)" }.joined(separator: ", ")
    }
}

extension Report {
    static func f(_ x: Double, _ digits: Int = 2) -> String {
        var s = String(Int((abs(x) * pow10(digits)).rounded()))
        while s.count <= digits { s = "0" + s }
        let cut = s.index(s.endIndex, offsetBy: -digits)
        return (x < 0 ? "-" : "") + (digits == 0 ? s : s[..<cut] + "." + s[cut...])
    }

    private static func pow10(_ n: Int) -> Double { (0..<n).reduce(1.0) { r, _ in r * 10 } }

    /// One line per ramp step.
    static func stepLine(_ r: PhaseResult) -> String {
        "rate \(f(r.rate, 0))/s: \(r.delivered)/\(r.expected) delivered (\(f(r.completeness, 3))%), "
            + "\(f(r.deliveriesPerSecond / 1000, 1))k deliveries/s, p50 \(f(r.p50)) p99 \(f(r.p99)) max \(f(r.max)) ms, "
            + "resyncs \(r.resyncs), late sends \(r.lateSends), bench busy \(f(r.benchBusyPercent, 0))% (CPU \(f(r.benchCPUPercent, 0))%)"
            + (r.daemonCPUSeconds.map { ", daemon CPU \(f($0))s" } ?? "")
            + " -> \(r.passes ? "pass" : "FAIL")"
    }

    var text: String {
        var lines: [String] = []
        lines.append("client             \(client == .lws ? "lws (FoldTransport WebClient, libwebsockets)" : "epoll (the benchmark's own loop)")")
        lines.append("connections        \(connections) subscribers + 1 publisher" + (idle > 0 ? " + \(idle) idle (board \(BenchConfig.idleBoard))" : ""))
        lines.append("subprotocol        offered \(protocolOffered); negotiated \(negotiatedText)")
        lines.append("set-up             \(Self.f(setupSeconds)) s (all handshakes + subscribes)" + (connectFailures > 0 ? ", \(connectFailures) failed" : ""))
        if let phase { lines += Self.phaseLines(phase) }
        if !steps.isEmpty {
            lines.append("ramp:")
            for s in steps { lines.append("  " + Self.stepLine(s)) }
            if let b = rampBest {
                lines.append("highest rate with complete delivery and p99 < 100 ms: \(Self.f(b.rate, 0)) changes/s (\(Self.f(b.deliveriesPerSecond / 1000, 1))k deliveries/s, p99 \(Self.f(b.p99)) ms)")
            } else {
                lines.append("no rate passed (complete delivery and p99 < 100 ms)")
            }
        }
        if !ends.isEmpty {
            lines.append("ended early        " + ends.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: "; "))
        }
        if let pid = daemonPID {
            lines.append("daemon             pid \(pid)" + (daemonRSSAfterSetupMiB.map { ", RSS after set-up \(Self.f($0, 1)) MiB" } ?? "")
                + (daemonCPUSetupSeconds.map { ", CPU for set-up \(Self.f($0)) s" } ?? ""))
        }
        return lines.joined(separator: "\n")
    }

    static func phaseLines(_ r: PhaseResult) -> [String] {
        var l: [String] = []
        l.append("changes sent       \(r.sent) at \(f(r.rate, 1))/s over \(f(r.seconds)) s (late sends \(r.lateSends), max lag \(f(r.maxLagMs)) ms)")
        l.append("deliveries         \(r.delivered) / \(r.expected) expected (\(f(r.completeness, 3))%), \(r.incompleteConnections) connections short")
        l.append("throughput         \(f(r.deliveriesPerSecond, 0)) deliveries/s")
        l.append("latency (ms)       p50 \(f(r.p50)) p90 \(f(r.p90)) p99 \(f(r.p99)) max \(f(r.max)) mean \(f(r.mean)) (from the send time stamped in each title)")
        l.append("  from schedule    p99 \(f(r.scheduledP99)) max \(f(r.scheduledMax))")
        l.append("acks               \(r.acks); errors \(r.errors); resyncs \(r.resyncs); gaps \(r.gaps); dups \(r.dups); closed \(r.closed)")
        l.append("frames in          \(r.framesIn) frames carrying \(r.messagesIn) messages; patch ~\(r.averagePatchBytes) bytes")
        l.append("bench loop busy    \(f(r.benchBusyPercent, 1))% (" + r.benchBusyMeaning + "); bench CPU \(f(r.benchCPUPercent, 1))%")
        if let c = r.daemonCPUSeconds {
            l.append("daemon CPU         \(f(c)) s" + (r.daemonCPUMicrosPerDelivery.map { " (\(f($0)) µs per delivery)" } ?? ""))
        }
        if let c = r.serverCoreSeconds {
            l.append("server core busy   \(f(c)) s" + (r.serverCoreMicrosPerDelivery.map { " (\(f($0)) µs per delivery, ksoftirqd and interrupts included)" } ?? ""))
        }
        if let c = r.commits {
            l.append("daemon commits     \(c.commits), mean \(f(c.meanMs, 3)) ms, over 10 ms \(c.over10ms.map(String.init) ?? "?"), over 50 ms \(c.over50ms.map(String.init) ?? "?")"
                + (c.slowestAtMostMs.map { ", slowest ≤ \($0.isFinite ? f($0, 1) : "∞") ms" } ?? ""))
        }
        if let rss = r.daemonRSSMiB {
            l.append("daemon RSS         \(f(rss, 1)) MiB (peak \(f(r.daemonPeakRSSMiB ?? rss, 1)) MiB)")
        }
        return l
    }
}

extension Report {
    static func phaseJSON(_ r: PhaseResult) -> JSON {
        func n(_ x: Double) -> JSON { .number(f(x, 3)) }
        func i(_ x: Int) -> JSON { .number(String(x)) }
        var fields: [(String, JSON)] = [
            ("rate", n(r.rate)), ("seconds", n(r.seconds)), ("subscribers", i(r.subscribers)),
            ("changes_sent", i(r.sent)), ("deliveries_expected", i(r.expected)), ("deliveries_received", i(r.delivered)),
            ("completeness_percent", n(r.completeness)), ("complete", .bool(r.complete)),
            ("connections_short", i(r.incompleteConnections)), ("deliveries_per_second", n(r.deliveriesPerSecond)),
            ("latency_ms", .object(JSONObject([("p50", n(r.p50)), ("p90", n(r.p90)), ("p99", n(r.p99)), ("max", n(r.max)), ("mean", n(r.mean))]))),
            ("latency_from_schedule_ms", .object(JSONObject([("p99", n(r.scheduledP99)), ("max", n(r.scheduledMax))]))),
            ("acks", i(r.acks)), ("errors", i(r.errors)), ("resyncs", i(r.resyncs)), ("gaps", i(r.gaps)), ("dups", i(r.dups)),
            ("closed", i(r.closed)), ("late_sends", i(r.lateSends)), ("max_send_lag_ms", n(r.maxLagMs)),
            ("frames_in", i(r.framesIn)), ("messages_in", i(r.messagesIn)), ("patch_bytes", i(r.averagePatchBytes)),
            ("bench_loop_busy_percent", n(r.benchBusyPercent)), ("bench_cpu_percent", n(r.benchCPUPercent)), ("passes", .bool(r.passes)),
        ]
        if let c = r.daemonCPUSeconds { fields.append(("daemon_cpu_seconds", n(c))) }
        if let u = r.daemonCPUMicrosPerDelivery { fields.append(("daemon_cpu_us_per_delivery", n(u))) }
        if let c = r.serverCoreSeconds { fields.append(("server_core_seconds", n(c))) }
        if let u = r.serverCoreMicrosPerDelivery { fields.append(("server_core_us_per_delivery", n(u))) }
        if let m = r.daemonRSSMiB { fields.append(("daemon_rss_mib", n(m))) }
        if let m = r.daemonPeakRSSMiB { fields.append(("daemon_peak_rss_mib", n(m))) }
        if let c = r.commits {
            fields.append(("commits", .object(JSONObject([
                ("count", i(c.commits)), ("mean_ms", n(c.meanMs)),
                ("over_10ms", c.over10ms.map(i) ?? .null), ("over_50ms", c.over50ms.map(i) ?? .null),
                ("slowest_at_most_ms", c.slowestAtMostMs.map { $0.isFinite ? n($0) : .string("+Inf") } ?? .null),
            ]))))
        }
        return .object(JSONObject(fields))
    }

    var json: String {
        var fields: [(String, JSON)] = [
            ("client", .string(client.rawValue)),
            ("connections", .number(String(connections))), ("idle_connections", .number(String(idle))),
            ("subprotocol_offered", .string(protocolOffered)),
            ("subprotocol", .string(negotiated.max { $0.value < $1.value }?.key ?? "")),
            ("setup_seconds", .number(Self.f(setupSeconds, 3))), ("connect_failures", .number(String(connectFailures))),
        ]
        fields.append(("ended_early", .object(JSONObject(ends.sorted { $0.key < $1.key }.map { ($0.key, .number(String($0.value))) }))))
        fields.append(("closed_without_close_frame", .number(String(closedSilently))))
        if let pid = daemonPID { fields.append(("daemon_pid", .number(String(pid)))) }
        if let m = daemonRSSAfterSetupMiB { fields.append(("daemon_rss_after_setup_mib", .number(Self.f(m, 3)))) }
        if let phase {
            if case .object(let o) = Self.phaseJSON(phase) { fields += o.map { ($0.key, $0.value) } }
        }
        if !steps.isEmpty {
            fields.append(("ramp", .array(steps.map(Self.phaseJSON))))
            fields.append(("ramp_best_rate", rampBest.map { .number(Self.f($0.rate, 0)) } ?? .null))
        }
        var out: [UInt8] = []
        JSON.object(JSONObject(fields)).encode(into: &out)
        return String(decoding: out, as: UTF8.self)
    }
}

extension Report {
    /// Writer mode, for people.
    static func writerLine(_ w: WriteResult, _ c: WriterCheck, config: BenchConfig, readers r: HistoryReaders.Result? = nil) -> String {
        "\(config.writers) writers on \(config.allNodes.count) daemon(s), \(config.sharedBoard ? "one shared board" : "a board each"), window \(config.window): "
            + "\(f(w.acksPerSecond, 0)) acknowledged changes/s over \(f(w.seconds)) s (\(w.acks) acks, \(w.errors) errors, \(w.unanswered) unanswered); "
            + "ack p50 \(f(w.p50)) p99 \(f(w.p99)) max \(f(w.max)) ms; check: \(c.ok ? "ok" : "FAILED") "
            + "(lost titles \(c.lostTitles), rev mismatches \(c.revMismatches), accordion \(c.accordionHolds ? "held" : "BROKEN"), diverged \(c.diverged))"
            + (r.map { "; \(config.historyReaders) history readers: \($0.reads) reads (\($0.failures) failed, \($0.bytes / 1_000_000) MB), read p50 \(f($0.p50)) p99 \(f($0.p99)) ms" } ?? "")
    }

    static func writerJSON(_ w: WriteResult, _ c: WriterCheck, config: BenchConfig, readers r: HistoryReaders.Result? = nil) -> String {
        var fields: [(String, JSON)] = [
            ("mode", .string("writers")), ("writers", .int(config.writers)), ("nodes", .int(config.allNodes.count)),
            ("shared_board", .bool(config.sharedBoard)), ("window", .int(config.window)),
            ("seconds", .number(f(w.seconds, 3))), ("sent", .int(w.sent)), ("acks", .int(w.acks)),
            ("acks_per_second", .number(f(w.acksPerSecond, 1))), ("errors", .int(w.errors)), ("unanswered", .int(w.unanswered)),
            ("ack_ms", .object(JSONObject([("p50", .number(f(w.p50, 3))), ("p99", .number(f(w.p99, 3))), ("max", .number(f(w.max, 3)))]))),
            ("check_ok", .bool(c.ok)), ("lost_titles", .int(c.lostTitles)), ("rev_mismatches", .int(c.revMismatches)),
            ("accordion_holds", .bool(c.accordionHolds)), ("diverged", .int(c.diverged)), ("final_revs", .int(c.finalRevs)),
        ]
        if let r {
            fields.append(("history_readers", .object(JSONObject([
                ("readers", .int(config.historyReaders)), ("limit", .int(config.historyLimit)), ("reads", .int(r.reads)),
                ("failures", .int(r.failures)), ("bytes", .int(r.bytes)),
                ("read_ms", .object(JSONObject([("p50", .number(f(r.p50, 3))), ("p99", .number(f(r.p99, 3)))]))),
            ]))))
        }
        var out: [UInt8] = []
        JSON.object(JSONObject(fields)).encode(into: &out)
        return String(decoding: out, as: UTF8.self)
    }
}
