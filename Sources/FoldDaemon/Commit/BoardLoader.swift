import FoldSystem
import FoldCore
import FoldHub

/// The thread that reads a board the hub does not hold when a client first
/// uses it (`HubEffect.readBoard`), on a store connection of its own, and
/// parses its document there, off the event loop. Apart from the history
/// reader: a first subscribe never waits behind a client paging through a
/// long history, and it runs at the daemon's priority, not the reader's.
/// The service thread submits; answers come back through `loaded`, which
/// posts to the hub and wakes lws.
final class BoardLoader: Service, Sendable {
    private enum Job: Sendable {
        case read(String, history: Int)
        case stop
    }

    let name = "foldsync-loader"
    private let source: any HistoryReader & Sendable
    private let worker = WorkerThread<Job>(name: "foldsync-loader")
    private let loaded: @Sendable (String, BoardLoad) -> Void

    init(source: any HistoryReader & Sendable, loaded: @escaping @Sendable (String, BoardLoad) -> Void) {
        self.source = source
        self.loaded = loaded
    }

    func start() { worker.start { [self] job in run(job) } }

    /// Any thread. The board as committed when the read starts, with its last `history` changes.
    func read(_ board: String, history: Int) { worker.enqueue(.read(board, history: history)) }

    /// Answers what was asked, closes its connection, then ends the thread.
    func stop(deadline: ContinuousClock.Instant) -> Bool { worker.finish(with: .stop, until: deadline) }

    private func run(_ job: Job) -> Bool {
        switch job {
        case .read(let board, let history):
            let read: Result<BoardRead?, StoreError>
            do throws(StoreError) { read = .success(try source.readBoard(board, history: history)) } catch { read = .failure(error) }
            loaded(board, BoardLoad(read))
            return true
        case .stop:
            source.close()
            return false
        }
    }
}
