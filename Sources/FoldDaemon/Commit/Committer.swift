import FoldCore
import FoldTransport
import Foundation
import FoldHub

/// The one thread that touches the store after start-up, so the event loop
/// never waits on the disk. The service thread submits; results come back
/// through `report`, which posts to the hub and wakes lws.
final class Committer: Sendable {
    private enum Job: Sendable {
        case commit(SealedBatch)
        case read(HistoryRead)
        case probe
        case stop
    }

    let store: any BoardStore & Sendable
    private let jobs = Locked<[Job]>([])
    private let signal = DispatchSemaphore(value: 0)
    private let done = DispatchSemaphore(value: 0)
    private let report: @Sendable (CommitOutcome) -> Void
    private let answer: @Sendable (UInt64, Result<[StoredChange], StoreError>) -> Void
    /// A shared store's refusal came with the boards as they stand: handed on right after the outcome.
    private let caughtUp: @Sendable ([StoreUpdate]) -> Void

    init(store: any BoardStore & Sendable, report: @escaping @Sendable (CommitOutcome) -> Void,
         answer: @escaping @Sendable (UInt64, Result<[StoredChange], StoreError>) -> Void,
         caughtUp: @escaping @Sendable ([StoreUpdate]) -> Void = { _ in }) {
        self.store = store
        self.report = report
        self.answer = answer
        self.caughtUp = caughtUp
    }

    /// Milliseconds since 1970, UTC: the commit time every history record carries.
    static func wallClockMs() -> Int { Int((Date().timeIntervalSince1970 * 1000).rounded()) }

    func start() {
        let thread = Thread { [self] in loop() }
        thread.name = "foldsync-committer"
        thread.start()
    }

    /// Any thread.
    func submit(_ batch: SealedBatch) { enqueue(.commit(batch)) }
    func probe() { enqueue(.probe) }
    /// Behind the commits submitted before it: a read sees them.
    func read(_ r: HistoryRead) { enqueue(.read(r)) }

    /// Finishes what was submitted, closes the store, then ends the thread; waits at most `timeout`.
    func stop(timeout: Double) {
        enqueue(.stop)
        _ = done.wait(timeout: .now() + timeout)
    }

    /// Entries read from the store at a time.
    static let readChunk = 16

    /// Reads what `r` asks for, a chunk at a time. A revert's read keeps the
    /// later changes as skeletons (see `HistoryRead.skeletonsAfterFirst`); a
    /// page for HTTP stops once it holds more than `HistoryBody.maxPageBytes`
    /// (an entry may hold a whole board), so a read costs a page's bound in
    /// memory, not `limit` boards; `HistoryBody.page` then cuts it and says `more`.
    static func load(_ r: HistoryRead, from store: any BoardStore) throws(StoreError) -> [StoredChange] {
        var out: [StoredChange] = []
        if r.skeletonsAfterFirst, case .since(var since) = r.query.anchor {
            while out.count < r.query.limit {
                let page = try store.history(board: r.board, HistoryQuery(.since(since), limit: min(50, r.query.limit - out.count)))
                guard let last = page.last else { break }
                out += out.isEmpty ? [page[0]] + HistoryRead.skeletons(Array(page.dropFirst())) : HistoryRead.skeletons(page)
                since = last.rev
            }
            return out
        }
        var anchor = r.query.anchor
        var bytes = 0
        while out.count < r.query.limit, bytes <= HistoryBody.maxPageBytes || out.count < 2 {
            let asked = min(readChunk, r.query.limit - out.count)
            let page = try store.history(board: r.board, HistoryQuery(anchor, limit: asked))
            guard let first = page.first, let last = page.last else { break }
            bytes += page.reduce(0) { $0 + HistoryBody.size(of: $1) }
            // Oldest first from `since`; from the latest or `before`, each chunk is older than the last.
            if case .since = anchor {
                out += page
                anchor = .since(last.rev)
            } else {
                out = page + out
                anchor = .before(first.rev)
            }
            if page.count < asked { break }
        }
        return out
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
            case .commit(let sealed):
                let started = DispatchTime.now().uptimeNanoseconds
                do {
                    try store.commit(sealed.encoded(now: Self.wallClockMs()))
                    let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
                    report(.committed(batch: sealed.id, seconds: seconds))
                } catch {
                    report(error.moved ? .moved(batch: sealed.id, reason: error.description)
                                       : .failed(batch: sealed.id, reason: error.description))
                    if error.moved && !error.caughtUp.isEmpty { caughtUp(error.caughtUp) }
                }
            case .read(let r):
                do {
                    answer(r.id, .success(try Self.load(r, from: store)))
                } catch {
                    answer(r.id, .failure(error))
                }
            case .probe:
                do {
                    try store.probe()
                    report(.probed(ok: true, reason: ""))
                } catch {
                    report(.probed(ok: false, reason: error.description))
                }
            case .stop:
                // A clean stop leaves the store whole on its own (SQLite: no -wal to copy along).
                store.close()
                done.signal()
                return
            }
        }
    }
}
