import FoldCore
import FoldHub
import FoldTransport
import Foundation

/// The thread that answers history and revert reads, on a store connection
/// of its own: a client paging through large histories never delays a
/// commit (the committer's thread never reads history), and a commit never
/// waits for it. The service thread submits; answers come back through
/// `answer`, which posts to the hub and wakes lws.
final class Reader: Sendable {
    private enum Job: Sendable {
        case read(HistoryRead)
        case stop
    }

    private let source: any HistoryReader & Sendable
    private let jobs = Locked<[Job]>([])
    private let signal = DispatchSemaphore(value: 0)
    private let done = DispatchSemaphore(value: 0)
    private let answer: @Sendable (UInt64, Result<HistoryAnswer, StoreError>) -> Void
    /// A test hook (`FOLDSYNCD_TEST_READ_DELAY_MS`): every read takes at least
    /// this long, so a test can show that commits go on meanwhile.
    private let delayMs: UInt32 = ProcessInfo.processInfo.environment["FOLDSYNCD_TEST_READ_DELAY_MS"].flatMap { UInt32($0) } ?? 0

    init(source: any HistoryReader & Sendable, answer: @escaping @Sendable (UInt64, Result<HistoryAnswer, StoreError>) -> Void) {
        self.source = source
        self.answer = answer
    }

    func start() {
        let thread = Thread { [self] in loop() }
        thread.name = "foldsync-reader"
        thread.start()
    }

    /// Any thread. The read sees every change committed before it starts.
    func read(_ r: HistoryRead) { enqueue(.read(r)) }

    /// Answers what was asked, closes its connection, then ends the thread; waits at most `timeout`.
    func stop(timeout: Double) {
        enqueue(.stop)
        _ = done.wait(timeout: .now() + timeout)
    }

    private func enqueue(_ job: Job) {
        jobs.withLock { $0.append(job) }
        signal.signal()
    }

    private func loop() {
        while true {
            signal.wait()
            guard let job = jobs.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) else { continue }
            switch job {
            case .read(let r):
                if delayMs > 0 { usleep(delayMs * 1000) }
                do {
                    answer(r.id, .success(try r.run(on: source)))
                } catch {
                    answer(r.id, .failure(error))
                }
            case .stop:
                source.close()
                done.signal()
                return
            }
        }
    }
}
