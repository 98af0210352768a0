extension Hub {
    /// READY=1, then the watchdog and the status line on their clocks. The
    /// watchdog is fed from the event loop's own timer, so a stuck loop stops
    /// the pings and the service manager restarts the daemon.
    func started() {
        announce()
        feedWatchdog()
        refreshStatus()
    }

    /// READY=1 with the status line: at start, and after each reload.
    func announce() { emit(.notify("READY=1\nSTATUS=\(statusLine)")) }

    func feedWatchdog() {
        guard let every = watchdogEvery, !stopping else { return }
        emit(.notify("WATCHDOG=1"))
        arm(.watchdog, at: now.adding(seconds: every))
    }

    /// On its clock, or `now` when the store's state changed (out of turn, the clock stays).
    func refreshStatus(now outOfTurn: Bool = false) {
        guard let every = statusEvery, !stopping else { return }
        emit(.notify("STATUS=\(statusLine)"))
        if !outOfTurn { arm(.status, at: now.adding(seconds: every)) }
    }
}
