import FoldSystem
import FoldCore
import FoldHub
import FoldTransport
import FoundationEssentials
import Glibc

/// The thread that answers history and revert reads, on a store connection
/// of its own: a client paging through large histories never delays a
/// commit (the committer's thread never reads history), and a commit never
/// waits for it. The service thread submits; answers come back through
/// `answer`, which posts to the hub and wakes lws.
final class Reader: Service, Sendable {
    private enum Job: Sendable {
        case read(HistoryRead)
        case stop
    }

    let name = "foldsync-reader"
    private let source: any HistoryReader & Sendable
    private let worker = WorkerThread<Job>(name: "foldsync-reader")
    private let answer: @Sendable (UInt64, Result<HistoryAnswer, StoreError>) -> Void
    /// A test hook (`FOLDSYNCD_TEST_READ_DELAY_MS`): every read takes at least
    /// this long, so a test can show that commits go on meanwhile.
    private let delayMs: UInt32 = ProcessInfo.processInfo.environment["FOLDSYNCD_TEST_READ_DELAY_MS"].flatMap { UInt32($0) } ?? 0

    init(source: any HistoryReader & Sendable, answer: @escaping @Sendable (UInt64, Result<HistoryAnswer, StoreError>) -> Void) {
        self.source = source
        self.answer = answer
    }

    /// History reads yield the core to commits and the event loop (nice
    /// 5): with 64 clients reading 1,000 entries twice a second, the
    /// writers' ack p99 stays within 1.5× of theirs without readers only
    /// so (PERFORMANCE.md). Not 10: commits keep the core busy while the
    /// disk flushes, and reads at 10 got so little of it that 64 were soon
    /// in flight and the next ones were refused (503).
    func start() { worker.start(nice: Self.nice) { [self] job in run(job) } }

    static let nice: Int32 = 5

    /// Any thread. The read sees every change committed before it starts.
    func read(_ r: HistoryRead) { worker.enqueue(.read(r)) }

    /// Answers what was asked, closes its connection, then ends the thread.
    func stop(deadline: ContinuousClock.Instant) -> Bool { worker.finish(with: .stop, until: deadline) }

    private func run(_ job: Job) -> Bool {
        switch job {
        case .read(let r):
            if delayMs > 0 { usleep(delayMs * 1000) }
            do {
                answer(r.id, .success(try r.run(on: source)))
            } catch {
                answer(r.id, .failure(error))
            }
            return true
        case .stop:
            source.close()
            return false
        }
    }
}
