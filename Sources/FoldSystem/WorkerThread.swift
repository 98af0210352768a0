import Dispatch
import Glibc

/// A thread of its own that runs jobs in the order they were handed over:
/// the committer's, its sync thread's and the reader's (each a `Service`
/// around one). Any thread may hand over a job.
public final class WorkerThread<Job: Sendable>: Sendable {
    private let name: String
    private let jobs = Locked<[Job]>([])
    private let signal = DispatchSemaphore(value: 0)
    private let done = DispatchSemaphore(value: 0)

    public init(name: String) { self.name = name }

    /// Starts the thread: `run` takes each job in turn and returns false
    /// after the one that ends the thread; `idle` runs when `idleEvery`
    /// seconds pass without a job. `nice`: the thread's own nice value
    /// (0, as the process, when nil).
    public func start(idleEvery: Double? = nil, nice: Int32? = nil, idle: @escaping @Sendable () -> Void = {}, _ run: @escaping @Sendable (Job) -> Bool) {
        SystemThread.start(name: name) { [self] in
            // On Linux a nice value belongs to a thread: `who` 0 is this thread alone.
            if let nice { _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, nice) }
            while true {
                if let every = idleEvery {
                    if signal.wait(timeout: .now() + every) == .timedOut {
                        idle()
                        continue
                    }
                } else {
                    signal.wait()
                }
                guard let job = jobs.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) else { continue }
                if !run(job) { break }
            }
            done.signal()
        }
    }

    public func enqueue(_ job: Job) {
        jobs.withLock { $0.append(job) }
        signal.signal()
    }

    /// Hands over `last` (a job that ends the thread) behind the others and
    /// waits for the thread to end until `deadline`; false when it has not.
    public func finish(with last: Job, until deadline: ContinuousClock.Instant) -> Bool {
        enqueue(last)
        return done.wait(until: deadline)
    }
}
