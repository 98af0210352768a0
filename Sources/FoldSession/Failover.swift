/// Which of several URLs (daemons of one cluster) to use next. After a
/// failure the next URL is tried at once; once every URL has failed since a
/// connection last opened (a whole round), the caller waits out its backoff
/// and the next round starts from the URL after the last one tried.
/// Pure: `SessionMachine` keeps one for its connections; a shell that only
/// fetches over HTTP keeps its own.
public struct Failover: Sendable, Equatable {
    public let count: Int
    /// The URL in use, an index below `count`.
    public private(set) var current = 0
    /// URLs that failed since a connection last opened.
    private var failedInARow = 0

    public init(count: Int) {
        self.count = max(1, count)
    }

    /// The current URL failed: moves to the next one. True when it is to be
    /// tried at once; false when the round is over (wait, then try it).
    public mutating func failed() -> Bool {
        failedInARow += 1
        current = (current + 1) % count
        guard failedInARow < count else {
            failedInARow = 0
            return false
        }
        return true
    }

    /// A connection opened: a later failure starts a new round.
    public mutating func opened() {
        failedInARow = 0
    }
}
