import FoldConfig
import FoldSystem
import FoldCore
import FoldCrypto
import FoldStore
import FoldTransport
import FoldHub

/// The daemon's life: parse, open the store, serve on the lws thread, stop on
/// SIGTERM/SIGINT. Returns the exit status.
public enum Daemon {
    public static func main(arguments: [String], environment: [String: String]) -> Int32 {
        let command: DaemonCommand
        do {
            command = try DaemonCommand.parse(arguments, environment: environment)
        } catch {
            StandardError.write("foldsyncd: \(error.description)\n")
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
                StandardError.write("foldsyncd: hash-token expects the secret on stdin\n")
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
            for p in problems { StandardError.write("foldsyncd: \(p)\n") }
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
        let catalog: [CatalogEntry], keys: [String: [StoredKey]]
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
        // Only the catalog and the action keys: a board's document is read when a client first uses it.
        do {
            var entries = try store.loadCatalog()
            if entries.isEmpty {
                if try createDefault(in: store) { logger.info("empty store: created the 'default' board") }
                // Another daemon on the same database may have created it first: read back what won.
                entries = try store.loadCatalog()
            }
            catalog = entries
            keys = Dictionary(grouping: try store.loadKeys(), by: \.board)
        } catch {
            logger.error("cannot read the store \(config.storeName): \(error)")
            return 1
        }

        let historySource: any HistoryReader & Sendable, boardSource: any HistoryReader & Sendable
        do {
            historySource = try store.historyReader()
            boardSource = try store.historyReader()
        } catch {
            logger.error("cannot open a reader on the store \(config.storeName): \(error)")
            return 1
        }

        // Every thread the daemon runs, in start order: each may use the ones
        // before it for as long as it runs, and they stop in reverse.
        let waker = Waker()
        let mailbox = HubMailbox(waker: waker)
        let storeLogger = logger.labelled("store")
        let report: @Sendable (CommitOutcome) -> Void = { mailbox.post(.commit($0)) }
        let caughtUp: @Sendable ([StoreUpdate]) -> Void = { updates in
            for u in updates { if let r = Follower.remote(u, logger: storeLogger) { mailbox.post(.remote(r)) } }
        }
        let reaper = Reaper(name: "foldsync-reaper")
        let syncer = store.syncsApart ? SyncThread(store: store, report: report, caughtUp: caughtUp) : nil
        let committer = Committer(store: store, syncer: syncer, reaper: reaper, report: report, caughtUp: caughtUp)
        let reader = Reader(source: historySource) { mailbox.post(.history(id: $0, $1)) }
        let loader = BoardLoader(source: boardSource) { mailbox.post(.board($0, $1)) }
        let follower = config.store.isEmpty ? nil
            : Follower(uri: config.store, timeoutMs: config.storeBusyMs, catalog: catalog, logger: logger.labelled("follower")) { mailbox.post(.remote($0)) }
        let clock = TimerClock(waker: waker)
        let loop = EventLoopService(transport: config.transport, logger: logger, waker: waker, clock: clock, mailbox: mailbox) { server in
            let hub = Hub(settings: config.hub(jwt: jwt), logger: logger, digest: OpenSSLDigest(),
                          boards: [], catalog: catalog, keys: keys,
                          watchdogEvery: notifier.watchdogIntervalUs.map { Double($0) / 1e6 },
                          statusEvery: notifier.socketPath == nil ? nil : 5)
            return HubDriver(hub: hub, config: config, server: server, notifier: notifier, mailbox: mailbox,
                             committer: committer, reader: reader, loader: loader, follower: follower)
        }
        let shutdown = Duration.seconds(config.shutdownTimeout)
        var members: [ServiceGroup.Member] = [
            .init(reaper, stopWithin: .seconds(2)),
        ]
        if let syncer { members.append(.init(syncer, stopWithin: .seconds(2))) }
        // The readers stop before the committer: SQLite's last connection to
        // close (the store's) folds the WAL into the file.
        members += [.init(committer, stopWithin: shutdown), .init(reader, stopWithin: .seconds(2)), .init(loader, stopWithin: .seconds(2))]
        if let follower { members.append(.init(follower, stopWithin: .seconds(2))) }
        members += [
            .init(clock, stopWithin: .seconds(1)),
            .init(loop, stopWithin: shutdown + .seconds(5)),
            .init(SignalService(mailbox: mailbox, notifier: notifier, logger: logger, sources: sources), stopWithin: .seconds(1)),
        ]
        let services = ServiceGroup(members)
        do throws(ServiceGroup.StartError) {
            try services.start()
        } catch {
            logger.error("\(error.underlying)")
            return 1
        }
        logger.debug("threads, in start order (they stop in reverse): \(services.names.joined(separator: ", "))")
        let host = config.host.contains(":") ? "[\(config.host)]" : config.host
        logger.info("foldsyncd \(DaemonVersion.string) listening on \(host):\(loop.port) (\(config.tls ? "wss" : "ws")://\(host):\(loop.port)/ws), store \(config.storeName), event loop \(config.eventLoop)\(EventLibraryPin.pinned.isEmpty ? "" : " (kept loaded: " + EventLibraryPin.pinned.joined(separator: ", ") + ")")")
        loop.waitUntilEnded()
        let overdue = services.stop()
        if !overdue.isEmpty { logger.error("still running at their stop deadline, left to end with the process: \(overdue.joined(separator: ", "))") }
        logger.info("stopped")
        return 0
    }

    /// The `default` board of an empty store, created once even when several daemons start together.
    static func createDefault(in store: any BoardStore) throws(StoreError) -> Bool {
        try store.createIfAbsent(StoredBoard(name: "default", epoch: Hub.newEpoch(), rev: 0, state: Board.initial.encoded()))
    }
}
