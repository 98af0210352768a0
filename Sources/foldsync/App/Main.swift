import FoldClient
import FoldCore
import FoldTransport
import Foundation

/// The whole program, as a function of the command line: parse, pick the
/// driver (a one-shot command, watch or the live view), run the lws loop on
/// this thread (it becomes the service thread), return the exit status.
enum Main {
    static func run(arguments: [String], environment: [String: String]) -> Int32 {
        let invocation: Invocation
        switch Arguments.parse(arguments, environment: environment) {
        case .failure(let e):
            Output.fail(e.description)
            return 2
        case .success(let i):
            invocation = i
        }
        let options = invocation.options
        if case .help(let name) = invocation.command {
            Output.out(CommandTable.help(for: name))
            return 0
        }
        if case .text(let text) = invocation.command {
            Output.out(text)
            return 0
        }
        var endpoints: [Endpoint] = []
        for url in options.urls {
            guard let endpoint = Endpoint(url: url) else {
                Output.fail("--url '\(url)' is not a ws://, wss://, http:// or https:// URL")
                return 2
            }
            endpoints.append(endpoint)
        }
        if invocation.command == .live, isatty(0) == 0 || isatty(1) == 0 {
            Output.fail("the live view needs a terminal; give a command (foldsync --help)")
            return 2
        }
        var document: Board? = nil
        if case .load(let path) = invocation.command {
            switch readDocument(path) {
            case .success(let b): document = b
            case .failure(let message):
                Output.fail(message.description)
                return 1
            }
        }

        var clientOptions = WebClientOptions()
        clientOptions.allowInsecureTLS = options.insecure
        clientOptions.connectTimeoutSeconds = max(1, Int(options.timeout.rounded(.up)))
        let level: LogLevel = environment["FOLDSYNC_DEBUG"] != nil ? .debug : .error
        let logger = invocation.command == .live
            ? Logger.silent
            : Logger(level: level, label: "foldsync") { line in Output.write(2, Array((line + "\n").utf8)) }
        let client = WebClient(options: clientOptions, logger: logger)
        do {
            try client.start()
        } catch {
            Output.fail(error.description)
            return 1
        }
        let inbox = Inbox(waker: client.waker)
        let session = Session(client: client, endpoints: endpoints, options: options, inbox: inbox)

        switch invocation.command {
        case .live:
            let live = LiveView(session: session)
            let signals = SignalWatch([SIGTERM, SIGINT, SIGHUP, SIGWINCH], inbox: inbox)
            let code = live.run()
            withExtendedLifetime(signals) {}
            return code
        case .watch:
            let watch = Watch(session: session, options: options)
            let signals = SignalWatch([SIGTERM, SIGINT, SIGHUP], inbox: inbox)
            watch.start()
            client.run()
            withExtendedLifetime(signals) {}
            return watch.exitCode ?? 1
        default:
            let command = ScriptCommand(session: session, command: invocation.command, options: options, document: document)
            let signals = SignalWatch([SIGTERM, SIGINT, SIGHUP], inbox: inbox)
            command.start()
            client.run()
            withExtendedLifetime(signals) {}
            return command.exitCode ?? 1
        }
    }

    /// The board document of `load`: from a file, or stdin for `-`.
    static func readDocument(_ path: String) -> Result<Board, UsageError> {
        let data: Data?
        if path == "-" {
            data = FileHandle.standardInput.readDataToEndOfFile()
        } else {
            data = FileManager.default.contents(atPath: path)
        }
        guard let data else { return .failure(UsageError("cannot read \(path)")) }
        do {
            let json = try JSONParser.parse(Array(data))
            return .success(try Board(json: json, limits: .defaults))
        } catch let e as JSONError {
            return .failure(UsageError("\(path): not JSON: \(e)"))
        } catch {
            return .failure(UsageError("\(path): not a board document: \(error)"))
        }
    }
}
