/// Growing waits between attempts to reach a store that failed: doubling
/// from `first` up to `cap`, and back to `first` after a success, so an
/// outage costs the database a few attempts a minute, not one a second.
public struct Backoff: Sendable {
    public let first: Double
    public let cap: Double
    private var upcoming: Double?

    public init(first: Double = 0.25, cap: Double = 5) {
        self.first = first
        self.cap = cap
    }

    /// The wait before the next attempt, in seconds; the one after is twice as long.
    public mutating func next() -> Double {
        let wait = upcoming ?? first
        upcoming = min(cap, wait * 2)
        return wait
    }

    public mutating func reset() { upcoming = nil }
}
