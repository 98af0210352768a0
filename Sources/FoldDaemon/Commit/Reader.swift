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
    private let answer: @Sendable (UInt64, Result<[StoredChange], StoreError>) -> Void
    /// A test hook (`FOLDSYNCD_TEST_READ_DELAY_MS`): every read takes at least
    /// this long, so a test can show that commits go on meanwhile.
    private let delayMs: UInt32 = ProcessInfo.processInfo.environment["FOLDSYNCD_TEST_READ_DELAY_MS"].flatMap { UInt32($0) } ?? 0

    init(source: any HistoryReader & Sendable, answer: @escaping @Sendable (UInt64, Result<[StoredChange], StoreError>) -> Void) {
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

    /// Entries read from the store at a time.
    static let readChunk = 16

    /// Reads what `r` asks for, a chunk at a time. A revert's read keeps the
    /// later changes as skeletons (see `HistoryRead.skeletonsAfterFirst`); a
    /// page for HTTP stops once it holds more than `HistoryBody.maxPageBytes`
    /// (an entry may hold a whole board), so a read costs a page's bound in
    /// memory, not `limit` boards; `HistoryBody.page` then cuts it and says `more`.
    static func load(_ r: HistoryRead, from store: any HistorySource) throws(StoreError) -> [StoredChange] {
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
            case .read(let r):
                if delayMs > 0 { usleep(delayMs * 1000) }
                do {
                    answer(r.id, .success(try Self.load(r, from: source)))
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
