import FoldClient
import FoldCore
import FoldTransport
import FoldSystem
import FoundationEssentials
import Glibc

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
        let bytes: [UInt8]?
        if path == "-" {
            bytes = readToEnd(0)
        } else {
            bytes = FileManager.default.contents(atPath: path).map { [UInt8]($0) }
        }
        guard let bytes else { return .failure(UsageError("cannot read \(path)")) }
        do {
            let json = try JSONParser.parse(bytes)
            return .success(try Board(json: json, limits: .defaults))
        } catch let e as JSONError {
            return .failure(UsageError("\(path): not JSON: \(e)"))
        } catch {
            return .failure(UsageError("\(path): not a board document: \(error)"))
        }
    }

    /// Everything `fd` holds until end of file; what came before a read error.
    static func readToEnd(_ fd: Int32) -> [UInt8] {
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while let n = try? systemCall("read", { read(fd, &buffer, buffer.count) }), n > 0 {
            out += buffer[0..<n]
        }
        return out
    }
}
