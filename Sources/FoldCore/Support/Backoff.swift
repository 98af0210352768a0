/// Reconnect delays: exponential from `base`, capped at `cap`, with jitter
/// ("equal jitter": half the delay fixed, half random) so that many clients
/// (or daemons) dropped together do not come back together. The terminal
/// client's reconnects, the daemon's store probes and its follower use it.
public struct Backoff: Sendable {
    public var base: Double
    public var cap: Double
    /// Failed attempts since the last success.
    public private(set) var attempts = 0

    public init(base: Double = 0.5, cap: Double = 10) {
        self.base = base
        self.cap = cap
    }

    /// The delay before the next attempt, in seconds; `random` is a number in
    /// 0..<1 (injected so tests are deterministic).
    public mutating func next(random: Double) -> Double {
        let exponent = min(attempts, 30)
        attempts += 1
        let ceiling = min(cap, base * Double(1 << exponent))
        return ceiling / 2 + ceiling / 2 * min(max(random, 0), 1)
    }

    /// Back to `base` after a connection that worked.
    public mutating func reset() { attempts = 0 }
}
