/// Counters for `/metrics`. Service thread only.
final class Metrics {
    var connectionsOpened = 0
    var messagesReceived = 0
    var changesApplied = 0
    var framesQueued = 0
    var bytesQueued = 0
    var resyncs = 0
    var resumes = 0
    var slowClosed = 0
    var commitFailures = 0
    var httpRequests = 0
    var refused: [String: Int] = [:]
    var upgradesRefused: [String: Int] = [:]
    var limitHits: [String: Int] = [:]
    var authFailures = 0
    var authTimeouts = 0
    /// Commit latency histogram: upper bounds in seconds, and counts per bucket.
    static let bounds: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5]
    var buckets = [Int](repeating: 0, count: bounds.count)
    var commitCount = 0
    var commitSum = 0.0

    func observeCommit(_ seconds: Double) {
        commitCount += 1
        commitSum += seconds
        if let i = Self.bounds.firstIndex(where: { seconds <= $0 }) { buckets[i] += 1 }
    }

    /// The Prometheus text exposition format, version 0.0.4.
    func render(hub: Hub) -> String {
        var out = ""
        func metric(_ name: String, _ type: String, _ help: String, _ value: Int) {
            out += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n\(name) \(value)\n"
        }
        metric("foldsync_connections", "gauge", "Open WebSocket connections.", hub.sessions.count)
        metric("foldsync_subscriptions", "gauge", "Board subscriptions over all connections.", hub.subscribers.values.reduce(0) { $0 + $1.count })
        metric("foldsync_boards", "gauge", "Boards in the store.", hub.boardCount)
        metric("foldsync_store_writable", "gauge", "1 while the store accepts writes.", hub.storeFault == nil ? 1 : 0)
        metric("foldsync_connections_opened_total", "counter", "WebSocket connections accepted.", connectionsOpened)
        metric("foldsync_messages_received_total", "counter", "WebSocket messages received.", messagesReceived)
        metric("foldsync_changes_applied_total", "counter", "Changes committed and broadcast.", changesApplied)
        metric("foldsync_patches_sent_total", "counter", "Messages queued to connections (patches, snapshots, presence).", framesQueued)
        metric("foldsync_bytes_sent_total", "counter", "Bytes of those messages.", bytesQueued)
        metric("foldsync_resyncs_total", "counter", "Slow connections resynchronised with a snapshot.", resyncs)
        metric("foldsync_resumes_total", "counter", "Subscriptions resumed from the change log.", resumes)
        metric("foldsync_slow_client_closes_total", "counter", "Connections closed for not reading.", slowClosed)
        metric("foldsync_commit_failures_total", "counter", "Store commits that failed.", commitFailures)
        metric("foldsync_http_requests_total", "counter", "HTTP requests served.", httpRequests)
        out += "# HELP foldsync_actions_refused_total Requests refused, by error code.\n# TYPE foldsync_actions_refused_total counter\n"
        for (code, n) in refused.sorted(by: { $0.key < $1.key }) {
            out += "foldsync_actions_refused_total{code=\"\(code)\"} \(n)\n"
        }
        let w = hub.server.writeCounts
        metric("foldsync_ws_writes_total", "counter", "WebSocket writes; each carries every message queued for its connection.", w.writes)
        metric("foldsync_ws_messages_written_total", "counter", "Messages carried by those writes.", w.messages)
        let t = hub.server.counters
        out += "# HELP foldsync_transport_closes_total Connections the transport dropped by itself, by reason.\n# TYPE foldsync_transport_closes_total counter\n"
        out += "foldsync_transport_closes_total{reason=\"message-too-large\"} \(t.closedTooLarge)\n"
        out += "foldsync_transport_closes_total{reason=\"binary-frame\"} \(t.closedBinary)\n"
        out += "foldsync_transport_closes_total{reason=\"incomplete-handshake\"} \(t.incompleteHandshakes)\n"
        out += "# HELP foldsync_limit_hits_total Messages refused by a per-connection limit, by limit.\n# TYPE foldsync_limit_hits_total counter\n"
        for (limit, n) in limitHits.sorted(by: { $0.key < $1.key }) {
            out += "foldsync_limit_hits_total{limit=\"\(limit)\"} \(n)\n"
        }
        metric("foldsync_auth_failures_total", "counter", "Tokens presented that matched none.", authFailures)
        metric("foldsync_auth_timeouts_total", "counter", "Connections closed for not authenticating in time.", authTimeouts)
        out += "# HELP foldsync_upgrades_refused_total WebSocket upgrades refused, by reason.\n# TYPE foldsync_upgrades_refused_total counter\n"
        for (reason, n) in upgradesRefused.sorted(by: { $0.key < $1.key }) {
            out += "foldsync_upgrades_refused_total{reason=\"\(reason)\"} \(n)\n"
        }
        out += "# HELP foldsync_commit_seconds Time to commit one batch durably.\n# TYPE foldsync_commit_seconds histogram\n"
        var cumulative = 0
        for (i, b) in Self.bounds.enumerated() {
            cumulative += buckets[i]
            out += "foldsync_commit_seconds_bucket{le=\"\(b)\"} \(cumulative)\n"
        }
        out += "foldsync_commit_seconds_bucket{le=\"+Inf\"} \(commitCount)\n"
        out += "foldsync_commit_seconds_sum \(commitSum)\nfoldsync_commit_seconds_count \(commitCount)\n"
        return out
    }
}
