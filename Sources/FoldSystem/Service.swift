/// A thread the daemon runs, with a start and a stop; a `ServiceGroup`
/// starts a list of them in order and stops them in reverse.
///
/// `start` returns once the thread serves (or throws, leaving nothing
/// running); `stop` asks it to finish what it holds and waits for it until
/// `deadline`, returning false when it is still running then. Both are
/// called by the group's owner, one at a time.
public protocol Service: AnyObject {
    /// The thread's name (`foldsync-...`), as logs and `ps -L` show it.
    var name: String { get }
    func start() throws
    func stop(deadline: ContinuousClock.Instant) -> Bool
}
