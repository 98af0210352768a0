import FoldConfig
import FoldCore
import FoldSystem
import Dispatch
import Glibc

/// The signal handlers, Dispatch sources on a global queue: SIGTERM and
/// SIGINT stop the daemon, SIGHUP re-reads the configuration (the driver
/// applies it). The signals themselves are ignored so that only the sources
/// see them. Started last, so a signal always finds the loop serving;
/// stopped first.
final class SignalService: Service {
    let name = "signals"
    private let mailbox: HubMailbox
    private let notifier: Notifier
    private let logger: Logger
    private let sources: ConfigSources
    private var handlers: [DispatchSourceSignal] = []

    init(mailbox: HubMailbox, notifier: Notifier, logger: Logger, sources: ConfigSources) {
        self.mailbox = mailbox
        self.notifier = notifier
        self.logger = logger
        self.sources = sources
    }

    func start() throws(SystemError) {
        for sig in [SIGTERM, SIGINT, SIGHUP] { try ignoreSignal(sig) }
        let mailbox = mailbox, notifier = notifier, logger = logger, sources = sources
        for sig in [SIGTERM, SIGINT] {
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler { @Sendable in mailbox.post(.stop) }
            handlers.append(source)
        }
        let hup = DispatchSource.makeSignalSource(signal: SIGHUP, queue: .global())
        hup.setEventHandler { @Sendable in
            do { try notifier.send("RELOADING=1") } catch { logger.debug("sd_notify RELOADING: \(error)") }
            logger.info("SIGHUP: re-reading the configuration")
            let (fresh, problems) = sources.resolve()
            guard problems.isEmpty else { return mailbox.post(.reloadRefused(problems.map(\.description).joined(separator: "; "))) }
            do throws(ConfigError) {
                mailbox.post(.reload(fresh, try JWTKeyFiles.load(fresh)))
            } catch {
                mailbox.post(.reloadRefused(error.description))
            }
        }
        handlers.append(hup)
        handlers.forEach { $0.resume() }
    }

    /// The handlers are cancelled; the signals stay ignored until the process exits.
    func stop(deadline: ContinuousClock.Instant) -> Bool {
        handlers.forEach { $0.cancel() }
        handlers.removeAll()
        return true
    }
}
