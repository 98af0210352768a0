/// Where a graceful shutdown stands.
enum Phase {
    case serving
    /// Accepting nothing new; pending commits finish.
    case draining
    /// Every client was sent 1001; waiting for them to go.
    case closing
    case stopped
}

extension Hub {
    /// True once a shutdown began.
    public var stopping: Bool { phase != .serving }

    /// Stop accepting, let pending commits finish, send every client 1001,
    /// then stop once they are gone or the timeout has passed.
    func beginShutdown() {
        guard phase == .serving else { return }
        phase = .draining
        emit(.notify("STOPPING=1"))
        emit(.stopAccepting)
        let held = residency.heldMessages
        logger.info("shutting down: \(sessions.count) connections, \(pipeline.waiting) pending writes\(held > 0 ? ", \(held) messages waiting for a board read" : "")")
        arm(.shutdown, at: now.adding(seconds: Double(settings.shutdownTimeout)))
    }

    /// After every input while stopping: once the store has everything, say
    /// goodbye; once everyone has gone, stop. What a client sent before the
    /// stop and is held behind a board being read is part of "everything":
    /// it is applied and answered once the board is in, before the 1001.
    func checkShutdown() {
        if phase == .draining && pipeline.isIdle && reads.isEmpty && pagesAwaitingSync.isEmpty && !residency.readsAny && residency.holdsNothing {
            phase = .closing
            for id in sessions.keys.sorted() {
                emit(.close(id: id, code: .goingAway, reason: "server shutdown", cause: .shutdown, flush: true, deadlineSeconds: 5))
            }
        }
        if phase == .closing && sessions.isEmpty { stop() }
    }

    /// The shutdown timeout passed. Clients not yet told (writes were still
    /// pending: the store did not finish) hear 1011 now, and the loop stops a
    /// moment later, so the close frames leave before the sockets do.
    func shutdownTimedOut() {
        guard phase == .draining else { return stop() }
        phase = .closing
        let reason = "server stopping with \(pipeline.waiting) writes unfinished"
        for id in sessions.keys.sorted() {
            emit(.close(id: id, code: .internalError, reason: reason, cause: .internalError, flush: false, deadlineSeconds: 1))
        }
        arm(.shutdown, at: now.adding(seconds: 1))
    }

    /// The end, whoever is still there.
    func stop() {
        guard phase != .stopped else { return }
        phase = .stopped
        emit(.stopServer)
    }
}
