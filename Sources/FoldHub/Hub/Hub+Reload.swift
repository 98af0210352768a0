import FoldCore

extension Hub {
    /// Applies the settings of a re-read configuration (which options apply
    /// live is the daemon's `ReloadPlan`): open connections keep only the
    /// rights their tokens still grant, and the next action meets the new limits.
    func reload(_ new: HubSettings) {
        settings = new
        refreshGrants()
        reloadError = nil
        announce()
    }

    /// The re-read configuration did not validate: the old one stays whole,
    /// and the status line says why until a reload succeeds.
    func reloadRefused(_ why: String) {
        reloadError = why
        announce()
    }
}
