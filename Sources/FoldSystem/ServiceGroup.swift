/// Runs a list of services: starts them in the list's order, stops them in
/// reverse, each within its own time.
///
/// The order is the dependency order: a service may use every one before it
/// for as long as it runs (the committer the reaper, the service thread the
/// committer), so nothing is stopped while a later one may still hand it
/// work. A start that fails stops the ones already started, in reverse.
///
/// The stop escalates rather than hangs: a service still running at its
/// deadline is named in the result and left to end with the process, and
/// the next one is stopped all the same, so a stuck thread costs at most its
/// own time. One thread at a time (the daemon's main thread).
public final class ServiceGroup {
    public struct Member {
        public let service: any Service
        /// How long its stop may take before the group goes on without it.
        public let stopWithin: Duration

        public init(_ service: any Service, stopWithin: Duration) {
            self.service = service
            self.stopWithin = stopWithin
        }
    }

    /// A start that failed: which service, and why.
    public struct StartError: Error, CustomStringConvertible {
        public let service: String
        public let underlying: any Error
        public var description: String { "\(service) did not start: \(underlying)" }
    }

    private let members: [Member]
    private var running: [Member] = []

    public init(_ members: [Member]) { self.members = members }

    /// The services' names in start order.
    public var names: [String] { members.map(\.service.name) }

    /// Starts every service in order. On a failure the ones started are
    /// stopped (in reverse) before the error is thrown.
    public func start() throws(StartError) {
        precondition(running.isEmpty, "a group starts once")
        for m in members {
            do {
                try m.service.start()
            } catch {
                _ = stop()
                throw StartError(service: m.service.name, underlying: error)
            }
            running.append(m)
        }
    }

    /// Stops the running services, last started first; returns the names of
    /// those still running at their deadline. A second call does nothing.
    @discardableResult
    public func stop() -> [String] {
        var overdue: [String] = []
        while let m = running.popLast() {
            if !m.service.stop(deadline: .now + m.stopWithin) { overdue.append(m.service.name) }
        }
        return overdue
    }
}
