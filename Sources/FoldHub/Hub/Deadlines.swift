/// What the hub must do at a time.
enum Deadline: Hashable {
    /// A connection that must still present a token.
    case auth(UInt64)
    /// A JWT's `exp` comes near: send `authExpiring`.
    case authExpiring(UInt64)
    /// A JWT's `exp` plus the leeway passed: close.
    case tokenExpiry(UInt64)
    /// A resynchronised connection that has not read since.
    case stall(UInt64)
    /// A board whose viewer count changed.
    case presence(String)
    /// A board that may have gone unused for `board-idle` seconds.
    case unload(String)
    /// Ask the store again whether it accepts writes.
    case probe
    /// A heartbeat comment on every event stream.
    case heartbeat
    /// A graceful shutdown gives up waiting.
    case shutdown
    /// Tell the service manager's watchdog the loop is alive.
    case watchdog
    /// Refresh the service manager's status line.
    case status
}

/// Every pending deadline, each stored once: a session is unauthenticated
/// or stalled exactly while its deadline is here. The hub asks its driver
/// for one wake-up at the earliest; nothing else is armed.
struct Deadlines {
    private var due: [Deadline: Instant] = [:]
    /// The wake-up last asked for, so an equal or later one is not asked again.
    private var wake: Instant?

    subscript(_ d: Deadline) -> Instant? { due[d] }
    func contains(_ d: Deadline) -> Bool { due[d] != nil }

    /// Sets a deadline; returns the wake-up to ask for when it is earlier
    /// than the one already asked for.
    mutating func set(_ d: Deadline, at t: Instant) -> Instant? {
        due[d] = t
        if let w = wake, w <= t { return nil }
        wake = t
        return t
    }

    mutating func remove(_ d: Deadline) { due[d] = nil }

    /// Removes and returns what is due at `now`. The wake-up asked for has
    /// come, so `nextWake` will ask for the next.
    mutating func expire(at now: Instant) -> [Deadline] {
        let expired = due.compactMap { $0.value <= now ? $0.key : nil }
        for d in expired { due[d] = nil }
        wake = nil
        return expired
    }

    /// The earliest deadline, when no wake-up for it (or earlier) was asked for yet.
    mutating func nextWake() -> Instant? {
        guard let t = due.values.min() else { return nil }
        if let w = wake, w <= t { return nil }
        wake = t
        return t
    }
}
