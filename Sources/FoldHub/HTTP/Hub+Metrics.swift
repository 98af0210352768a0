import FoldCore

extension Hub {
    /// The Prometheus text exposition format, version 0.0.4.
    public func metricsText(transport t: TransportFigures, store: StoreFigures = StoreFigures()) -> String {
        let m = metrics
        var out = ""
        func metric(_ name: String, _ type: String, _ help: String, _ value: Int) {
            out += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n\(name) \(value)\n"
        }
        func labelled(_ name: String, _ help: String, _ label: String, _ values: [(String, Int)]) {
            out += "# HELP \(name) \(help)\n# TYPE \(name) counter\n"
            for (key, n) in values { out += "\(name){\(label)=\"\(key)\"} \(n)\n" }
        }
        func sorted(_ d: [String: Int]) -> [(String, Int)] { d.sorted { $0.key < $1.key }.map { ($0.key, $0.value) } }
        metric("foldsync_connections", "gauge", "Open WebSocket connections.", sessions.count)
        metric("foldsync_subscriptions", "gauge", "Board subscriptions over all connections.", subscriptions.count)
        metric("foldsync_boards", "gauge", "Boards in the store.", boardCount)
        metric("foldsync_boards_in_memory", "gauge", "Boards held in memory; the others are read from the store on first use.", boardsInMemory)
        metric("foldsync_board_reads_total", "counter", "Boards read from the store on first use.", m.boardReads)
        metric("foldsync_board_read_failures_total", "counter", "Board reads the store failed (the requests waiting were answered with an internal error).", m.boardReadFailures)
        metric("foldsync_boards_unloaded_total", "counter", "Boards let go after board-idle seconds unused and unwatched (position and action keys kept).", m.boardsUnloaded)
        metric("foldsync_store_writable", "gauge", "1 while the store accepts writes.", pipeline.fault == nil ? 1 : 0)
        metric("foldsync_connections_opened_total", "counter", "WebSocket connections accepted.", m.connectionsOpened)
        metric("foldsync_messages_received_total", "counter", "WebSocket messages received.", m.messagesReceived)
        metric("foldsync_changes_applied_total", "counter", "Changes committed and broadcast.", m.changesApplied)
        metric("foldsync_patches_sent_total", "counter", "Messages queued to connections (patches, snapshots, presence).", m.framesQueued)
        metric("foldsync_bytes_sent_total", "counter", "Bytes of those messages.", m.bytesQueued)
        metric("foldsync_resyncs_total", "counter", "Slow connections resynchronised with a snapshot.", m.resyncs)
        metric("foldsync_resumes_total", "counter", "Subscriptions resumed from the change log.", m.resumes)
        metric("foldsync_slow_client_closes_total", "counter", "Connections closed for not reading.", m.slowClosed)
        metric("foldsync_commit_failures_total", "counter", "Store commits that failed.", m.commitFailures)
        metric("foldsync_duplicate_actions_total", "counter", "Repeats of an accepted action's key, answered with the first answer and not applied again.", m.duplicateActions)
        metric("foldsync_http_requests_total", "counter", "HTTP requests served.", m.httpRequests)
        labelled("foldsync_actions_refused_total", "Requests refused, by error code.", "code", sorted(m.refused))
        metric("foldsync_ws_writes_total", "counter", "WebSocket writes; each carries every message queued for its connection.", t.writes)
        metric("foldsync_ws_messages_written_total", "counter", "Messages carried by those writes.", t.messagesWritten)
        metric("foldsync_ws_send_submissions_total", "counter", "Always 0: io_uring was removed in 0.2 (kept so that existing dashboards do not break).", 0)
        metric("foldsync_ws_short_writes_total", "counter", "Writes a socket took only part of; lws holds the rest and sends it first.", t.shortWrites)
        metric("foldsync_ws_write_cost_nanoseconds", "gauge", "What a write costs the service thread, as measured in large flushes (assumed until then); paced connections' gather is sized by it.", t.writeCostNs)
        metric("foldsync_ws_paced_connections", "gauge", "Connections whose writes are gathered (paced) in the last 50 ms window.", t.pacedConnections)
        metric("foldsync_ws_gather_nanoseconds", "gauge", "How long a paced connection's writes gather now (0: gathering off).", t.gatherNs)
        labelled("foldsync_transport_closes_total", "Connections the transport dropped by itself, by reason.", "reason", [
            // The older series, kept for existing dashboards: the same counts as the closes by reason.
            ("message-too-large", t.closes[.messageTooLarge] ?? 0), ("binary-frame", t.closes[.binaryFrame] ?? 0), ("incomplete-handshake", t.incompleteHandshakes),
        ])
        labelled("foldsync_connections_closed_total",
                 "WebSocket connections ended, by reason, each once: they add up to connections_opened_total minus connections.",
                 "reason", CloseCause.allCases.map { ($0.rawValue, t.closes[$0] ?? 0) })
        labelled("foldsync_connections_refused_total", "Connections refused for want of descriptors, by where.", "reason", [
            ("descriptor-limit", t.refusedAtDescriptorLimit), ("descriptor-table-full", t.refusedPastDescriptorTable),
        ])
        labelled("foldsync_limit_hits_total", "Messages refused by a per-connection limit, by limit.", "limit", sorted(m.limitHits))
        metric("foldsync_auth_failures_total", "counter", "Tokens presented that matched none.", m.authFailures)
        metric("foldsync_auth_timeouts_total", "counter", "Connections closed for not authenticating in time.", m.authTimeouts)
        labelled("foldsync_jwt_refusals_total", "JWTs refused, by the check that failed.", "check",
                 JWTRefusal.Check.allCases.filter { $0 != .keyConfiguration }.map { ($0.rawValue, m.jwtRefusals[$0.rawValue, default: 0]) })
        metric("foldsync_event_streams", "gauge", "Open event streams (GET /api/boards/NAME/events), counted in foldsync_connections too.", streams.count)
        metric("foldsync_event_streams_opened_total", "counter", "Event streams opened.", m.streamsOpened)
        labelled("foldsync_event_streams_ended_total", "Event streams ended, by why: the daemon's close cause, or reader (the reader went away).", "reason", sorted(m.streamsEnded))
        metric("foldsync_token_expiries_total", "counter", "Connections closed because their JWT expired.", m.tokenExpiries)
        labelled("foldsync_upgrades_refused_total", "WebSocket upgrades refused, by reason.", "reason", sorted(m.upgradesRefused))
        metric("foldsync_store_reconnects_total", "counter", "Connections to the store made again after one broke.", store.reconnects)
        metric("foldsync_catchup_lag_revs", "gauge", "Revs the shared store's log holds that this node has not applied yet, over all boards.", catchUpLag(store.heads))
        out += "# HELP foldsync_commit_seconds Time to commit one batch durably.\n# TYPE foldsync_commit_seconds histogram\n"
        var cumulative = 0
        for (i, b) in Metrics.bounds.enumerated() {
            cumulative += m.buckets[i]
            out += "foldsync_commit_seconds_bucket{le=\"\(b)\"} \(cumulative)\n"
        }
        out += "foldsync_commit_seconds_bucket{le=\"+Inf\"} \(m.commitCount)\n"
        out += "foldsync_commit_seconds_sum \(m.commitSum)\nfoldsync_commit_seconds_count \(m.commitCount)\n"
        out += "# HELP foldsync_request_refusals Requests a shared store committed, by the times a batch holding each was refused first because another node had moved its board.\n# TYPE foldsync_request_refusals histogram\n"
        cumulative = 0
        for (i, b) in Metrics.refusalBounds.enumerated() {
            cumulative += m.refusalBuckets[i]
            out += "foldsync_request_refusals_bucket{le=\"\(b)\"} \(cumulative)\n"
        }
        out += "foldsync_request_refusals_bucket{le=\"+Inf\"} \(m.refusalCount)\n"
        out += "foldsync_request_refusals_sum \(m.refusalSum)\nfoldsync_request_refusals_count \(m.refusalCount)\n"
        return out
    }

    /// Revs behind the shared store's heads: a board at another epoch (or
    /// unknown here) is behind by all of its revs, plus one for the board itself.
    func catchUpLag(_ heads: [String: BoardHead]) -> Int {
        heads.reduce(0) { sum, h in
            guard let p = position(of: h.key) else { return sum + h.value.rev + 1 }
            return sum + (p.epoch == h.value.epoch ? max(0, h.value.rev - p.rev) : h.value.rev + 1)
        }
    }
}
