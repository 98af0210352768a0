import FoldCore
import FoldSystem
import FoldTransport
import Dispatch

/// `foldsync-lws`, the service thread. It creates the server and the hub's
/// driver on itself, because lws' contract is that the thread that serves a
/// context creates it and is the only one to touch it; it serves until the
/// hub stops the loop (a `.stop` from the mailbox), and tears the context
/// down there. Other threads reach it only through `mailbox`.
final class EventLoopService: Service, Sendable {
    let name = "foldsync-lws"
    private let transport: TransportConfig
    private let logger: Logger
    private let waker: Waker
    private let clock: TimerClock
    private let mailbox: HubMailbox
    /// Runs on the service thread, once the server listens.
    private let makeDriver: @Sendable (WebServer) -> HubDriver
    private let started = DispatchSemaphore(value: 0)
    private let ended = Locked(false)
    private let finished = DispatchSemaphore(value: 0)
    private let outcome = Locked<Result<Int, TransportError>?>(nil)

    /// `waker` and `clock`: the ones `mailbox` and the timers wake the loop with.
    init(transport: TransportConfig, logger: Logger, waker: Waker, clock: TimerClock, mailbox: HubMailbox,
         makeDriver: @escaping @Sendable (WebServer) -> HubDriver) {
        self.transport = transport
        self.logger = logger
        self.waker = waker
        self.clock = clock
        self.mailbox = mailbox
        self.makeDriver = makeDriver
    }

    /// The port it listens on; 0 before a successful start.
    var port: Int {
        guard case .success(let p)? = outcome.withLock({ $0 }) else { return 0 }
        return p
    }

    /// Returns once the server listens, or throws why it cannot.
    func start() throws(TransportError) {
        SystemThread.start(name: name, stackSize: 8 << 20) { [self] in serve() }
        started.wait()
        if case .failure(let error)? = outcome.withLock({ $0 }) { throw error }
    }

    private func serve() {
        defer {
            ended.withLock { $0 = true }
            finished.signal()
        }
        let server = WebServer(config: transport, logger: logger.labelled("lws"), waker: waker, clock: clock)
        do throws(TransportError) {
            try server.start()
        } catch {
            outcome.withLock { $0 = .failure(error) }
            started.signal()
            return
        }
        let driver = makeDriver(server)
        server.delegate = driver
        outcome.withLock { $0 = .success(server.port) }
        started.signal()
        driver.feed(.started)
        server.run()
    }

    /// Returns when the loop has ended (the hub stopped it on a signal).
    func waitUntilEnded() {
        if ended.withLock({ $0 }) { return }
        finished.wait()
        finished.signal()
    }

    /// The hub closes every client (1001), waits for what is pending, and stops the loop.
    func stop(deadline: ContinuousClock.Instant) -> Bool {
        if ended.withLock({ $0 }) { return true }
        mailbox.post(.stop)
        guard finished.wait(until: deadline) else { return false }
        finished.signal()
        return true
    }
}
