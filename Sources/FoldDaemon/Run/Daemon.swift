import FoldConfig
import FoldSystem
import FoldCore
import FoldCrypto
import FoldStore
import FoldTransport
import Foundation
import FoldHub

/// The daemon's life: parse, open the store, serve on the lws thread, stop on
/// SIGTERM/SIGINT. Returns the exit status.
public enum Daemon {
    public static func main(arguments: [String], environment: [String: String]) -> Int32 {
        let command: DaemonCommand
        do {
            command = try DaemonCommand.parse(arguments, environment: environment)
        } catch {
            FileHandle.standardError.write(Data("foldsyncd: \(error.description)\n".utf8))
            return 2
        }
        switch command {
        case .help(let text):
            print(text)
            return 0
        case .version(let text):
            print(text)
            return 0
        case .hashToken:
            guard let line = readLine(strippingNewline: true), !line.isEmpty else {
                FileHandle.standardError.write(Data("foldsyncd: hash-token expects the secret on stdin\n".utf8))
                return 2
            }
            print(OpenSSLDigest().hex(Array(line.utf8)))
            return 0
        case .migrateStore(let from, let to, let overwrite):
            return StoreMigration.run(from: from, to: to, overwrite: overwrite)
        case .checkConfig(let sources):
            let (checked, resolved) = sources.resolve()
            var problems = resolved.map(\.description)
            if resolved.isEmpty {
                do throws(ConfigError) { _ = try JWTKeyFiles.load(checked) } catch { problems.append(error.description) }
            }
            for p in problems { FileHandle.standardError.write(Data("foldsyncd: \(p)\n".utf8)) }
            if problems.isEmpty { print("configuration ok\(sources.file.map { " (\($0))" } ?? "")") }
            // A note only: checking a running daemon's configuration is what this is for.
            if checked.store.isEmpty, let pid = SQLiteStoreHold.holder(of: StoreOpener.sqlitePath(checked.db)) {
                print("note: the store \(checked.db) is held by a running foldsyncd (pid \(pid))")
            }
            return problems.isEmpty ? 0 : 2
        case .maintenance(let c):
            return Maintenance.run(c)
        case .run(let config, let sources):
            return run(config, sources: sources)
        }
    }

    static func run(_ config: DaemonConfig, sources: ConfigSources) -> Int32 {
        let logger = Logger(level: config.logLevel, label: "foldsyncd", leveledSink: LogSink.make(environment: sources.environment))
        let notifier = Notifier(environment: sources.environment)
        let jwt: JWTSettings?
        do throws(ConfigError) {
            jwt = try JWTKeyFiles.load(config)
        } catch {
            logger.error("\(error.description)")
            return 2
        }
        let store: any BoardStore & Sendable
        let loaded: [LoadedBoard]
        do throws(StoreOpener.Failure) {
            store = try StoreOpener.open(config)
        } catch {
            let why = "cannot open the store \(config.storeName): \(error.message)"
            logger.error(why)
            // systemd shows it beside the failed unit (the exit status says only "1").
            do { try notifier.send("STATUS=\(why)") } catch { logger.debug("sd_notify STATUS: \(error)") }
            return error.status
        }
        if let (from, to) = store.upgradedSchema {
            logger.info("upgraded the store \(config.storeName) from schema \(from) to \(to)")
        }
        do {
            var boards = try LoadedBoard.loadAll(from: store, history: config.retention.historyPerBoard, logger: logger)
            if boards.isEmpty {
                if try createDefault(in: store) { logger.info("empty store: created the 'default' board") }
                // Another daemon on the same database may have created it first: read back what won.
                boards = try LoadedBoard.loadAll(from: store, history: config.retention.historyPerBoard, logger: logger)
            }
            loaded = boards
        } catch {
            logger.error("cannot read the store \(config.storeName): \(error)")
            return 1
        }

        let historySource: any HistoryReader & Sendable
        do {
            historySource = try store.historyReader()
        } catch {
            logger.error("cannot open a history reader on the store \(config.storeName): \(error)")
            return 1
        }

        let started = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        let outcome = Locked<Result<(Int, HubMailbox), TransportError>?>(nil)
        let thread = Thread {
            let server = WebServer(config: config.transport, logger: logger.labelled("lws"))
            do throws(TransportError) {
                try server.start()
            } catch {
                outcome.withLock { $0 = .failure(error) }
                started.signal()
                finished.signal()
                return
            }
            let hub = Hub(settings: config.hub(jwt: jwt), logger: logger, digest: OpenSSLDigest(), boards: loaded.map { $0.state(history: config.retention.historyPerBoard, keysPerBoard: config.retention.actionKeysPerBoard) },
                          watchdogEvery: notifier.watchdogIntervalUs.map { Double($0) / 1e6 },
                          statusEvery: notifier.socketPath == nil ? nil : 5)
            let driver = HubDriver(hub: hub, config: config, server: server, notifier: notifier)
            let mailbox = driver.mailbox
            let storeLogger = logger.labelled("store")
            driver.committer = Committer(store: store, report: { mailbox.post(.commit($0)) },
                                         caughtUp: { updates in
                                             for u in updates { if let r = Follower.remote(u, logger: storeLogger) { mailbox.post(.remote(r)) } }
                                         })
            driver.committer.start()
            driver.reader = Reader(source: historySource) { mailbox.post(.history(id: $0, $1)) }
            driver.reader.start()
            if !config.store.isEmpty {
                driver.follower = Follower(uri: config.store, timeoutMs: config.storeBusyMs, boards: loaded,
                                           logger: logger.labelled("follower")) { mailbox.post(.remote($0)) }
                driver.follower?.start()
            }
            server.delegate = driver
            outcome.withLock { $0 = .success((server.port, mailbox)) }
            started.signal()
            driver.feed(.started)
            server.run()
            // The reader first: SQLite's last connection to close (the store's) folds the WAL into the file.
            driver.reader.stop(timeout: 2)
            driver.committer.stop(timeout: Double(driver.config.shutdownTimeout))
            driver.follower?.stop(timeout: 2)
            finished.signal()
        }
        thread.name = "foldsync-lws"
        thread.stackSize = 8 << 20
        thread.start()
        started.wait()

        let mailbox: HubMailbox
        switch outcome.withLock({ $0! }) {
        case .failure(let error):
            logger.error("\(error.description)")
            return 1
        case .success(let (port, box)):
            mailbox = box
            let host = config.host.contains(":") ? "[\(config.host)]" : config.host
            logger.info("foldsyncd \(DaemonVersion.string) listening on \(host):\(port) (\(config.tls ? "wss" : "ws")://\(host):\(port)/ws), store \(config.storeName), event loop \(config.eventLoop)")
        }

        do {
            // Ignored, so that only the dispatch sources below see them.
            for sig in [SIGTERM, SIGINT, SIGHUP] { try ignoreSignal(sig) }
        } catch {
            logger.error("\(error)")
            mailbox.post(.stop)
            finished.wait()
            return 1
        }
        let signals = [SIGTERM, SIGINT].map { sig -> DispatchSourceSignal in
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler { @Sendable in mailbox.post(.stop) }
            source.resume()
            return source
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
        hup.resume()
        finished.wait()
        hup.cancel()
        signals.forEach { $0.cancel() }
        logger.info("stopped")
        return 0
    }

    /// The `default` board of an empty store, created once even when several daemons start together.
    static func createDefault(in store: any BoardStore) throws(StoreError) -> Bool {
        try store.createIfAbsent(StoredBoard(name: "default", epoch: Hub.newEpoch(), rev: 0, state: Board.initial.encoded()))
    }
}
