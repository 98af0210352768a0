import FoldCore

/// What the hub asks its driver to do, in order.
public enum HubEffect {
    /// Queue one frame, encoded once, on each connection, whatever its queue.
    case send(ids: [UInt64], frame: [UInt8])
    /// The same for fan-out: each queue must admit it (`QueueBound`); for a
    /// connection whose queue does not, the driver queues nothing and reports
    /// `overflowed` at once, before the next effect. `flush` says when the
    /// frame leaves (`FanOutFlush`).
    case fanOut(ids: [UInt64], frame: [UInt8], flush: FanOutFlush)
    /// Drop what the connection has queued and not written, then queue these
    /// (snapshots that cover what was dropped).
    case resync(id: UInt64, frames: [[UInt8]])
    /// Close with a WebSocket close code, counted in `/metrics` under
    /// `cause`. `flush`: after what is queued; `deadlineSeconds` bounds a
    /// peer that never reads.
    case close(id: UInt64, code: CloseCode, reason: String, cause: CloseCause, flush: Bool, deadlineSeconds: Int32)
    /// Hand the batch to the store (off the event loop); answer with `committed`.
    case commit(SealedBatch)
    /// Ask the store whether it accepts writes again; answer with `committed(.probed)`.
    case probe
    case respond(exchange: UInt64, HubResponse)
    /// Answer the exchange with an event stream that stays open (`text/event-stream`).
    case openStream(exchange: UInt64)
    /// Queue one event, framed once, on each stream; `bounded`: as `fanOut`, within each queue's bound.
    case streamSend(ids: [UInt64], event: [UInt8], bounded: Bool)
    /// Drop what a stream has queued, then queue these (snapshots); report when they are out.
    case streamResync(id: UInt64, events: [[UInt8]])
    /// End a stream, after what is queued when `flush`.
    case endStream(id: UInt64, flush: Bool)
    /// Answer with the dashboard file at `path` (the driver reads files).
    case serveFile(exchange: UInt64, path: String, ifNoneMatch: String?)
    /// Answer with `Hub.metricsText`, which needs the transport's own counters.
    case serveMetrics(exchange: UInt64)
    /// Send `tick` at this time or soon after. A later `wakeAt` may ask for an
    /// earlier time; extra ticks are harmless.
    case wakeAt(Instant)
    /// One sd_notify message (`READY=1`, `STATUS=...`, `WATCHDOG=1`, `STOPPING=1`).
    case notify(String)
    /// Shutdown began: accept no new connections.
    case stopAccepting
    /// Every client is gone (or the shutdown timeout passed): stop the loop.
    case stopServer
    /// A shared store's board moved past what `remote` could apply (a gap,
    /// another epoch, or skipped while this node's writes were waiting): read
    /// its changes after `after` (or the board, when they are gone) and answer with `remote`.
    case catchUp(board: String, epoch: String, after: Int)
    /// This node's viewer count of a board changed: a shared store's
    /// heartbeat carries it to the other nodes (nothing to do on SQLite).
    case sharePresence(board: String, ViewerCount)
    /// Read part of a board's history (off the event loop, on a connection
    /// that sees what is committed); answer with `historyRead`.
    case readHistory(HistoryRead)
    /// Read a board that is not in memory, with its last `history` changes
    /// (off the event loop); answer with `boardRead`.
    case readBoard(board: String, history: Int)
}
