/// What a re-read configuration (SIGHUP) changes: the options that apply
/// live take their new values at once, the others keep the running value
/// until a restart. Decided here, from the option table, for the daemon to
/// hand each part to its owner (the hub's settings, the transport's limits,
/// the web root, the certificate) and to log.
public struct ReloadPlan: Sendable, Equatable {
    /// The configuration now in force, and the one before.
    public let applied: DaemonConfig
    public let previous: DaemonConfig
    /// Applied now: `key old -> new`.
    public let changed: [String]
    /// Changed in the file but only read at start-up.
    public let needsRestart: [String]

    public init(from old: DaemonConfig, to new: DaemonConfig) {
        var changed: [String] = [], needsRestart: [String] = []
        var applied = new
        for option in OptionTable.options {
            guard let diff = option.diff(old, new) else { continue }
            if option.live {
                changed.append(diff)
            } else {
                needsRestart.append(option.key)
                option.keep(&applied, old)
            }
        }
        self.applied = applied
        previous = old
        self.changed = changed
        self.needsRestart = needsRestart
    }
}
