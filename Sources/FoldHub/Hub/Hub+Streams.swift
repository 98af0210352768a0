import FoldCore

/// Event streams (`GET /api/boards/NAME/events`): a board's messages as
/// Server-Sent Events, for clients that cannot open a WebSocket. A stream
/// is a session like any other (it counts against the connection limits,
/// shows in presence, has a bounded queue, is resynchronised and closed as
/// a slow WebSocket is); what differs is only the framing, done here as
/// effects leave the hub (`routedToStreams`), once per message.
extension Hub {
    /// `foldsync_event_streams_ended_total`'s reason for a stream whose reader went away.
    static let readerWentAway = "reader"

    func openStream(_ name: String, _ r: HubRequest) {
        let who: Identity?, secondsLeft: Double?
        switch httpAccess(r, .read, board: name) {
        case .denied(let denial): return emit(.respond(exchange: r.id, denial))
        case .allowed(let identity, let left): (who, secondsLeft) = (identity, left)
        }
        guard Names.isValid(name) else { return emit(.respond(exchange: r.id, .error(.badRequest, "invalid board name"))) }
        guard let b = boards[name], b.committed != nil else {
            return emit(.respond(exchange: r.id, .error(.notFound, "no board '\(name)'")))
        }
        if let full = connectionLimitRefusal(peer: r.peer) { return emit(.respond(exchange: r.id, full)) }
        // Where to resume: the browser's Last-Event-ID on a reconnect, or ?since=.
        var since = r.headers["last-event-id"].flatMap(EventStream.parsePosition)
        if since == nil {
            for pair in r.query.split(separator: "&") where pair.hasPrefix("since=") {
                since = EventStream.parsePosition(String(pair.dropFirst(6)).removingPercentColons)
            }
        }
        let s = Session(id: r.id, peer: r.peer, burst: settings.clients.actionBurst, now: now)
        s.stream = name
        sessions[s.id] = s
        streams.insert(s.id)
        if countsPerIP(r.peer) {
            s.countedPerIP = true
            connectionsPerIP[r.peer, default: 0] += 1
        }
        metrics.streamsOpened += 1
        emit(.openStream(exchange: r.id))
        if let who {
            s.identity = who
            if let left = secondsLeft, let jwt = settings.jwt {
                s.expiresAt = now.adding(seconds: max(0, left))
                arm(.tokenExpiry(s.id), at: now.adding(seconds: max(0, left + jwt.leeway)))
            }
        }
        if !deadlines.contains(.heartbeat) { arm(.heartbeat, at: now.adding(seconds: settings.streamHeartbeat)) }
        logger.debug("stream \(s.name) of '\(name)' from \(r.peer)\(since.map { " since \($0.epoch):\($0.rev)" } ?? "")")
        subscribe(s, to: name, since: since)
    }

    /// Every `stream-heartbeat` seconds (15) while streams are open: a comment line on each.
    func heartbeat() {
        guard !streams.isEmpty else { return }
        emit(.streamSend(ids: Array(streams), event: EventStream.heartbeat, bounded: true))
        arm(.heartbeat, at: now.adding(seconds: settings.streamHeartbeat))
    }

    /// A broadcast on a board some streams watch: the WebSocket subscribers
    /// get the frame, the streams the event, framed once. False when no
    /// stream watches the board (then the caller fans out as usual), so a
    /// board without streams costs one pass over the few open streams.
    func broadcastWithStreams(_ frame: [UInt8], on board: String, to ids: [UInt64]) -> Bool {
        let watching = streams.filter { sessions[$0]?.stream == board }
        guard !watching.isEmpty else { return false }
        let sockets = ids.filter { !watching.contains($0) }
        let streamIDs = ids.filter { watching.contains($0) }
        if !sockets.isEmpty { emitSplit(.fanOut(ids: sockets, frame: frame, flush: .endOfTurn)) }
        if !streamIDs.isEmpty, let e = event(frame, for: streamIDs) { emitSplit(.streamSend(ids: streamIDs, event: e, bounded: true)) }
        return true
    }

    /// The effects for `effect` when it reaches any stream: the streams'
    /// share as events, the WebSocket connections' share as it was. Nil
    /// when no stream is concerned. Broadcasts are split at their source
    /// (`broadcastWithStreams`); what comes here is addressed to a few.
    func routedToStreams(_ effect: HubEffect) -> [HubEffect]? {
        switch effect {
        case .send(let ids, let frame):
            guard let (sockets, streamIDs) = split(ids) else { return nil }
            return (sockets.isEmpty ? [] : [.send(ids: sockets, frame: frame)])
                + (event(frame, for: streamIDs).map { [.streamSend(ids: streamIDs, event: $0, bounded: false)] } ?? [])
        case .resync(let id, let frames) where streams.contains(id):
            return [.streamResync(id: id, events: frames.compactMap { event($0, for: [id]) })]
        case .close(let id, _, _, let cause, let flush, _) where streams.contains(id):
            if let s = sessions[id], !s.streamEnded {
                s.streamEnded = true
                metrics.streamsEnded[cause.rawValue, default: 0] += 1
            }
            return [.endStream(id: id, flush: flush)]
        default:
            return nil
        }
    }

    private func split(_ ids: [UInt64]) -> ([UInt64], [UInt64])? {
        guard ids.contains(where: streams.contains) else { return nil }
        var sockets: [UInt64] = [], streamIDs: [UInt64] = []
        for id in ids { if streams.contains(id) { streamIDs.append(id) } else { sockets.append(id) } }
        return (sockets, streamIDs)
    }

    /// The event for a message to `ids` (streams of one board): presence
    /// and deleted carry the board's position as their id.
    private func event(_ frame: [UInt8], for ids: [UInt64]) -> [UInt8]? {
        let board = ids.first.flatMap { sessions[$0]?.stream }.flatMap { boards[$0] }
        return EventStream.event(frame, position: board.map { Position(epoch: $0.committedEpoch, rev: $0.committedRev) })
    }
}

extension String {
    /// `E%3AR` → `E:R` (a colon percent-encoded in a query).
    fileprivate var removingPercentColons: String {
        var out = ""
        var rest = Substring(self)
        while let pct = rest.firstIndex(of: "%") {
            out += rest[..<pct]
            let code = rest[pct...].prefix(3)
            if code.lowercased() == "%3a" {
                out += ":"
                rest = rest[rest.index(pct, offsetBy: 3)...]
            } else {
                out += "%"
                rest = rest[rest.index(after: pct)...]
            }
        }
        return out + rest
    }
}
