import FoldCore

extension Hub {
    /// Applies a re-read configuration: everything that can change live
    /// does; the rest waits for a restart. The report says which is which.
    func reload(_ new: DaemonConfig) {
        let old = config
        var report = ReloadReport(config: old)
        for option in OptionTable.options {
            guard let diff = option.diff(old, new) else { continue }
            if option.live { report.changed.append(diff) } else { report.needsRestart.append(option.key) }
        }
        var applied = new
        for option in OptionTable.options where !option.live { option.keep(&applied, old) }
        config = applied
        report.config = applied
        report.previous = old
        refreshGrants()
        reloadError = nil
        emit(.reloaded(report))
        announce()
    }

    /// The re-read configuration did not validate: the old one stays whole.
    func reloadRefused(_ why: String) {
        reloadError = why
        var report = ReloadReport(config: config)
        report.refused = why
        emit(.reloaded(report))
        announce()
    }
}
