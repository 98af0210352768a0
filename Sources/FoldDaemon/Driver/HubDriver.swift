import FoldConfig
import FoldCore
import FoldHub
import FoldTransport
import Dispatch

/// The hub's hands: turns the transport's callbacks (and the mailbox) into
/// hub inputs stamped with the time, and carries out the effects the hub
/// returns. Holds no state of its own beyond the earliest timer it has
/// armed (and the web files' cache).
///
/// Service thread only, apart from `mailbox`, which other threads append to.
final class HubDriver {
    let hub: Hub
    let server: WebServer
    let mailbox: HubMailbox
    let notifier: Notifier
    let committer: Committer
    let reader: Reader
    let loader: BoardLoader
    /// Follows a shared (PostgreSQL) store; nil on SQLite.
    let follower: Follower?
    var web: StaticFiles
    /// The configuration in force (the hub, the transport and the web root each hold their part).
    var config: DaemonConfig
    /// The earliest tick a timer is armed for; a later `wakeAt` needs no other.
    private var armedWake: Instant?
    /// Inputs the transport reported while an effect was being performed (a
    /// queue past its bound, a queue drained, a connection closed), for the
    /// hub right after that effect; and whether `feed`'s loop is running.
    private var reported: [HubInput] = []
    private var feeding = false

    /// The store's threads run (services started before the loop's) for as
    /// long as the driver does; `mailbox` wakes `server`'s loop.
    init(hub: Hub, config: DaemonConfig, server: WebServer, notifier: Notifier, mailbox: HubMailbox,
         committer: Committer, reader: Reader, loader: BoardLoader, follower: Follower?) {
        self.hub = hub
        self.config = config
        self.server = server
        self.notifier = notifier
        self.mailbox = mailbox
        self.committer = committer
        self.reader = reader
        self.loader = loader
        self.follower = follower
        self.web = StaticFiles(root: config.webRoot, logger: hub.logger)
    }

    static func now() -> Instant { DispatchTime.now().uptimeNanoseconds }

    /// Carries out the hub's effects one for one, in order: every decision
    /// (when a fan-out's frame leaves, too) was made by the hub. What the
    /// transport reports meanwhile goes to the hub after the effect that
    /// caused it, and its effects come next, before the rest: a resync lands
    /// before anything queued after the frame that overflowed. One loop, the
    /// only caller of the hub: `perform` never feeds it again.
    func feed(_ input: HubInput) {
        var effects = hub.handle(input, at: Self.now())
        feeding = true
        defer { feeding = false }
        var next = 0
        while next < effects.count {
            perform(effects[next])
            next += 1
            guard !reported.isEmpty else { continue }
            let inputs = reported
            reported.removeAll()
            effects.insert(contentsOf: inputs.flatMap { hub.handle($0, at: Self.now()) }, at: next)
        }
    }

    /// An input from a transport callback: fed now, or after the effect being performed.
    func report(_ input: HubInput) {
        if feeding { reported.append(input) } else { feed(input) }
    }

    func perform(_ effect: HubEffect) {
        switch effect {
        case .send(let ids, let bytes):
            let frame = OutFrame(bytes)
            for id in ids { server.connection(id)?.send(frame) }
        case .fanOut(let ids, let bytes, let flush):
            let frame = OutFrame(bytes)
            let (now, except): (Bool, [UInt64]) = switch flush {
            case .endOfTurn: (false, [])
            case .now(let except): (true, except)
            }
            server.fanOut(frame, to: ids, within: hub.queueBound, writeNow: now, except: except) { id in
                report(.overflowed(id: id, bytes: frame.count))
            }
        case .resync(let id, let frames):
            guard let c = server.connection(id) else { return }
            c.discardQueued()
            for f in frames { c.send(OutFrame(f)) }
        case .close(let id, let code, let reason, let cause, let flush, let deadline):
            server.connection(id)?.close(code: code, reason: reason, cause: cause, flush: flush, deadlineSeconds: deadline)
        case .commit(let batch): committer.submit(batch)
        case .probe: committer.probe()
        case .respond(let exchange, let reply): server.respond(exchange, reply)
        case .openStream(let exchange): server.openStream(exchange)
        case .streamSend(let ids, let event, let bounded):
            server.streamSend(event, to: ids, within: bounded ? hub.queueBound : nil) { id in
                report(.overflowed(id: id, bytes: event.count))
            }
        case .streamResync(let id, let events): server.streamResync(id, events)
        case .endStream(let id, let flush): server.endStream(id, flush: flush)
        case .serveFile(let exchange, let path, let etag): server.respond(exchange, web.serve(path: path, ifNoneMatch: etag))
        case .serveMetrics(let exchange):
            let t = server.counters, w = server.writeCounts, p = server.pacingFigures
            let figures = TransportFigures(
                incompleteHandshakes: t.incompleteHandshakes,
                writes: w.writes, messagesWritten: w.messages, shortWrites: w.short,
                writeCostNs: p.nsPerWrite, pacedConnections: p.paced, gatherNs: p.gatherNs, closes: t.closes,
                refusedAtDescriptorLimit: t.refusedAtDescriptorLimit, refusedPastDescriptorTable: t.refusedPastDescriptorTable)
            let text = hub.metricsText(transport: figures, store: storeFigures())
            server.respond(exchange, HTTPResponse(status: 200, contentType: "text/plain; version=0.0.4; charset=utf-8", body: Array(text.utf8)))
        case .wakeAt(let t): wake(at: t)
        case .notify(let message):
            do { try notifier.send(message) } catch { hub.logger.debug("sd_notify \(message.prefix(while: { $0 != "=" })): \(error)") }
        case .stopAccepting: server.refuseNewConnections = true
        case .stopServer: server.stop()
        case .catchUp(let board, let epoch, let after): follower?.catchUp(board: board, epoch: epoch, after: after)
        case .sharePresence(let board, let count): follower?.share(board: board, count)
        case .readHistory(let read): reader.read(read)
        case .readBoard(let board, let history): loader.read(board, history: history)
        }
    }

    /// The shared store's figures (none on SQLite): the committer's
    /// reconnects and the follower's, and the heads the follower last read.
    private func storeFigures() -> StoreFigures {
        guard let follower else { return StoreFigures() }
        var f = follower.figures.withLock { $0 }
        f.reconnects += committer.store.reconnects
        return f
    }

    /// Arms one lws timer for the hub's next deadline, unless one at least as early is armed.
    private func wake(at t: Instant) {
        if let armed = armedWake, armed <= t { return }
        armedWake = t
        let now = Self.now()
        let us = t > now ? Int64((t - now + 999) / 1_000) : 0
        server.schedule(afterMicroseconds: us) { [weak self] in
            guard let self else { return }
            if self.armedWake == t { self.armedWake = nil }
            self.feed(.tick)
        }
    }
}
