import Foundation

/// The time a test's wait has had, counted so that a stalled test process
/// does not fail it: a sleep between two polls that overran by more than
/// `stall` seconds means the waiting thread was not run (a loaded host, the
/// main actor held by another test's synchronous step, or the concurrency
/// pool's threads, one per core, all held by synchronous tests that run
/// for a minute or more), and neither, most likely, was the work it waits
/// for. Such overruns are not counted, up to `forgivable` seconds in all,
/// so that a real hang still ends.
public struct PollBudget: Sendable {
    public let seconds: Double
    public let stall: Double
    public let forgivable: Double
    private let start: Double
    /// Seconds of overrun not counted so far.
    public private(set) var forgiven: Double = 0
    /// The longest overrun of one sleep, counted or not.
    public private(set) var longestOverrun: Double = 0

    public init(seconds: Double, now: Double, stall: Double = 1, forgivable: Double = 600) {
        self.seconds = seconds
        self.stall = stall
        self.forgivable = forgivable
        start = now
    }

    /// A sleep asked for `asked` seconds took `took`.
    public mutating func slept(asked: Double, took: Double) {
        let overrun = max(0, took - asked)
        longestOverrun = max(longestOverrun, overrun)
        if overrun > stall { forgiven = min(forgivable, forgiven + overrun) }
    }

    /// Whether the wait may go on at `now`.
    public func lasts(now: Double) -> Bool { now - start - forgiven < seconds }

    /// For a failure message: what was not counted.
    public var description: String {
        String(format: "%.1f s of stalls not counted; longest sleep overrun %.1f s", forgiven, longestOverrun)
    }

    /// Monotonic seconds.
    public static var now: Double {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }
}

/// Polls `condition` every `every` seconds (blocking the thread) until it
/// holds or `timeout` seconds of `PollBudget` time pass.
public func eventually(timeout: Double = 10, every: Double = 0.05, _ condition: () throws -> Bool) rethrows -> Bool {
    var budget = PollBudget(seconds: timeout, now: PollBudget.now)
    while true {
        if try condition() { return true }
        if !budget.lasts(now: PollBudget.now) { return false }
        let before = PollBudget.now
        usleep(useconds_t(every * 1_000_000))
        budget.slept(asked: every, took: PollBudget.now - before)
    }
}

/// Polls `condition` every 20 ms with `Task.sleep`, on the caller's actor
/// (the main actor, where a session delivers), until it holds or `timeout`
/// seconds of `PollBudget` time pass. Never blocks a thread: what it waits
/// for may need the same cooperative pool (two threads on two cores).
public func until(
    _ timeout: Double = 10, isolation: isolated (any Actor)? = #isolation, _ condition: () throws -> Bool
) async rethrows -> Bool {
    var budget = PollBudget(seconds: timeout, now: PollBudget.now)
    return try await until(&budget, condition)
}

/// `until` with a budget of the caller's, which then tells what stalled.
public func until(
    _ budget: inout PollBudget, isolation: isolated (any Actor)? = #isolation, _ condition: () throws -> Bool
) async rethrows -> Bool {
    while true {
        if try condition() { return true }
        if !budget.lasts(now: PollBudget.now) { return false }
        let before = PollBudget.now
        try? await Task.sleep(nanoseconds: 20_000_000)
        budget.slept(asked: 0.02, took: PollBudget.now - before)
    }
}
