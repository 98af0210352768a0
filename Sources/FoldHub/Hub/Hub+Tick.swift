extension Hub {
    /// Carries out whatever deadlines have come.
    func tick() {
        for d in deadlines.expire(at: now) {
            switch d {
            case .auth(let id): authExpired(id)
            case .authExpiring(let id): tokenExpiring(id)
            case .tokenExpiry(let id): tokenExpired(id)
            case .heartbeat: heartbeat()
            case .stall(let id): stallExpired(id)
            case .presence(let board): presenceDue(board)
            case .unload(let board): unloadIfIdle(board)
            case .probe: emit(.probe)
            case .shutdown: shutdownTimedOut()
            case .watchdog: feedWatchdog()
            case .status: refreshStatus()
            }
        }
        if let next = deadlines.nextWake() { emit(.wakeAt(next)) }
    }
}
