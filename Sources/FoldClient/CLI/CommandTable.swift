/// One entry per command: its name, arguments and one line of help. The
/// same table drives parsing checks and `--help`.
public struct CommandSpec: Sendable {
    public let name: String
    public let usage: String
    public let summary: String
    /// Options only this command takes (beyond the common ones).
    public let options: [(String, String)]
}

public enum CommandTable {
    public static let commands: [CommandSpec] = [
        CommandSpec(name: "boards", usage: "boards", summary: "list the daemon's boards with their revs", options: []),
        CommandSpec(name: "show", usage: "show", summary: "print the board as a tree", options: []),
        CommandSpec(name: "toggle", usage: "toggle SECTION", summary: "expand or collapse one section", options: []),
        CommandSpec(name: "expand", usage: "expand SECTION", summary: "expand one section", options: []),
        CommandSpec(name: "collapse", usage: "collapse SECTION", summary: "collapse one section", options: []),
        CommandSpec(name: "expand-all", usage: "expand-all", summary: "expand every section (multi mode only)", options: []),
        CommandSpec(name: "collapse-all", usage: "collapse-all", summary: "collapse every section", options: []),
        CommandSpec(name: "mode", usage: "mode single|multi", summary: "switch between accordion and independent sections", options: []),
        CommandSpec(name: "add-section", usage: "add-section TITLE [--items A,B] [--at N] [--id ID]",
                    summary: "add a section (at the end unless --at); prints its id",
                    options: [("--items A,B", "comma-separated items"), ("--at N", "position (0-based)"),
                              ("--id ID", "the section id (the daemon picks one otherwise)")]),
        CommandSpec(name: "remove-section", usage: "remove-section SECTION", summary: "remove a section", options: []),
        CommandSpec(name: "move-section", usage: "move-section SECTION N", summary: "move a section to position N (0-based)", options: []),
        CommandSpec(name: "set-title", usage: "set-title SECTION TITLE", summary: "rename a section", options: []),
        CommandSpec(name: "set-items", usage: "set-items SECTION ITEM...", summary: "replace a section's items (strings)", options: []),
        CommandSpec(name: "focus", usage: "focus SECTION ITEM",
                    summary: "point everyone at an item (its index, 0-based, or its id); expands its section", options: []),
        CommandSpec(name: "clear-focus", usage: "clear-focus", summary: "remove the board's focus", options: []),
        CommandSpec(name: "load", usage: "load FILE|-", summary: "create or replace the board from a JSON document (- reads stdin)", options: []),
        CommandSpec(name: "dump", usage: "dump", summary: "write the board document to stdout", options: []),
        CommandSpec(name: "history", usage: "history [--since REV | --before REV] [--limit N]",
                    summary: "print the board's changes, one line each: rev, time (UTC), who, what",
                    options: [("--since REV", "changes after REV, oldest first"), ("--before REV", "the changes just before REV"),
                              ("--limit N", "at most N changes (default 100, at most 1000)")]),
        CommandSpec(name: "revert", usage: "revert REV", summary: "undo the change that made REV, as a new change", options: []),
        CommandSpec(name: "watch", usage: "watch",
                    summary: "print one JSON line per message received for the board (snapshot, patch, presence, deleted, error; not hello)",
                    options: []),
    ]

    public static func spec(_ name: String) -> CommandSpec? { commands.first { $0.name == name } }

    static let commonOptions: [(String, String)] = [
        ("--url URL", "daemon WebSocket URL (default ws://127.0.0.1:7681/ws, or $FOLDSYNC_URL); several (repeat it, or a comma list): on failure the next is tried"),
        ("--board NAME", "board to use (default: default)"),
        ("--token SECRET", "bearer token for the upgrade (or $FOLDSYNC_TOKEN)"),
        ("--token-command CMD", "run CMD (sh -c) for a token before each connection and when the daemon says it expires, and send the new one in band (or $FOLDSYNC_TOKEN_COMMAND)"),
        ("--json", "machine-readable output"),
        ("--timeout SECONDS", "how long to wait for the daemon (default 10)"),
        ("--insecure", "accept self-signed certificates on wss://"),
        ("-h, --help", "this help, or a command's (foldsync COMMAND --help)"),
        ("--version", "print the version (alone)"),
    ]

    /// The text of `foldsync --help` or `foldsync COMMAND --help`.
    public static func help(for name: String?) -> String {
        var out = ""
        func optionLines(_ list: [(String, String)]) {
            for (flag, text) in list { out += "  " + flag.padding(20) + text + "\n" }
        }
        if let name, let spec = spec(name) {
            out += "usage: foldsync [OPTIONS] \(spec.usage)\n\n\(spec.summary).\n"
            if spec.usage.contains("SECTION") { out += "SECTION is a section id, or #N for the N-th section (0-based).\n" }
            if !spec.options.isEmpty {
                out += "\nOptions of \(spec.name):\n"
                optionLines(spec.options)
            }
            out += "\nCommon options:\n"
            optionLines(commonOptions)
            out += "\nExit status: 0 done, 1 refused or no connection, 2 bad usage.\n"
            return out
        }
        out += "usage: foldsync [OPTIONS] [COMMAND [ARGS]]\n\n"
        out += "Without a command, on a terminal: the live view of the board.\n\nCommands:\n"
        for c in commands { out += "  " + c.usage.padding(36) + c.summary + "\n" }
        out += "\nOptions (before or after the command):\n"
        optionLines(commonOptions)
        out += "\nSECTION is a section id, or #N for the N-th section (0-based).\n"
        out += "Exit status: 0 done, 1 refused or no connection, 2 bad usage.\n"
        return out
    }
}

extension String {
    /// Left-aligned in `width` columns (ASCII), with at least one space after.
    func padding(_ width: Int) -> String {
        count >= width ? self + " " : self + String(repeating: " ", count: width - count)
    }
}
