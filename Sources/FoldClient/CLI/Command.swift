import FoldCore

/// What the user asked for, typed.
public enum Command: Sendable, Equatable {
    /// No command: the live view.
    case live
    case boards
    case show
    case dump
    case watch
    /// `toggle`, `expand` or `collapse` one section (by id or `#N`).
    case fold(FoldKind, section: String)
    case expandAll
    case collapseAll
    case mode(BoardMode)
    case addSection(title: String, items: [String], at: Int?, id: String?)
    case removeSection(String)
    case moveSection(String, to: Int)
    case setTitle(String, title: String)
    case setItems(String, items: [String])
    /// Point the board's focus at an item: its index, or its `id`.
    case focus(String, item: String)
    case clearFocus
    /// A file path, or `-` for stdin.
    case load(String)
    /// The board's changes: who, when, what (`--since`, `--before`, `--limit`).
    case history(since: Int?, before: Int?, limit: Int?)
    /// Undo the change that made this rev.
    case revert(Int)
    /// `--help`, for one command or in general.
    case help(String?)
    /// Text to print before anything connects: `--version`, or the hidden `--man` (the man page in roff).
    case text(String)

    public enum FoldKind: String, Sendable, Equatable { case toggle, expand, collapse }
}

/// Options shared by every command; each has a default.
public struct ClientOptions: Sendable, Equatable {
    /// The daemons' WebSocket endpoints, tried in order (`--url`, given once
    /// or more, each maybe a comma list; `$FOLDSYNC_URL`): on failure the
    /// client moves to the next, resuming where it was.
    public var urls = ["ws://127.0.0.1:7681/ws"]
    /// The first of `urls`; setting it leaves only that one.
    public var url: String {
        get { urls[0] }
        set { urls = [newValue] }
    }
    /// The board to work on (`--board`).
    public var board = "default"
    /// Sent as `Authorization: Bearer TOKEN` on the upgrade (`--token`, `$FOLDSYNC_TOKEN`).
    public var token: String?
    /// Run for a token before each connection and on `authExpiring` (`--token-command`, `$FOLDSYNC_TOKEN_COMMAND`).
    public var tokenCommand: String?
    /// Machine output (`--json`).
    public var json = false
    /// Seconds a command waits for the daemon (`--timeout`).
    public var timeout = 10.0
    /// Accept self-signed certificates on wss:// (`--insecure`).
    public var insecure = false

    public init() {}
}

/// A parsed command line.
public struct Invocation: Sendable, Equatable {
    public var command: Command
    public var options: ClientOptions

    public init(command: Command, options: ClientOptions) {
        self.command = command
        self.options = options
    }
}

/// Bad usage: one line for stderr, exit status 2.
public struct UsageError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
