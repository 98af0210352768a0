import FoldCore

extension Hub {
    /// One frame, encoded once, to every subscriber of the board, bounded by
    /// each queue (`QueueBound`); the driver reports those it did not fit.
    func broadcast(_ frame: [UInt8], on board: String) {
        let ids = subscriptions.fanOutList(of: board)
        guard !ids.isEmpty else { return }
        metrics.framesQueued += ids.count
        metrics.bytesQueued += ids.count * frame.count
        if !streams.isEmpty, broadcastWithStreams(frame, on: board, to: ids) { return }
        emit(.fanOut(ids: ids, frame: frame, flush: .endOfTurn))
    }

    /// A fan-out frame did not fit: the session is resynchronised instead
    /// (conflation), and the frame is covered by the snapshot.
    func overflowed(_ id: UInt64, bytes: Int) {
        metrics.framesQueued -= 1
        metrics.bytesQueued -= bytes
        guard sessions[id] != nil else { return }
        metrics.resyncs += 1
        let snaps = subscriptions.boards(of: id).sorted().compactMap { boards[$0]?.snapshot() }
        emit(.resync(id: id, frames: snaps))
        // The stall clock starts at the first resync and stops when the queue drains.
        if !deadlines.contains(.stall(id)) {
            arm(.stall(id), at: now.adding(seconds: Double(settings.clients.slowClientSeconds)))
        }
    }

    /// The stall deadline passed: the session never read its snapshot.
    func stallExpired(_ id: UInt64) {
        guard let s = sessions[id] else { return }
        metrics.slowClosed += 1
        logger.info("closing \(s.name): it has not read for \(settings.clients.slowClientSeconds)s")
        emit(.close(id: id, code: .policyViolation, reason: "not reading; resync failed", cause: .slowClient, flush: false, deadlineSeconds: 2))
    }
}
