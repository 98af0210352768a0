import FoldCore

/// Parses the command line once, at the edge. Options may stand before or
/// after the command, as `--name value` or `--name=value`; `--` ends them.
public enum Arguments {
    public static func parse(_ args: [String], environment: [String: String]) -> Result<Invocation, UsageError> {
        do throws(UsageError) {
            return .success(try parseThrowing(args, environment: environment))
        } catch {
            return .failure(error)
        }
    }

    static let valued: Set<String> = ["--url", "--board", "--token", "--token-command", "--timeout", "--items", "--at", "--id", "--since", "--before", "--limit"]
    static let flags: Set<String> = ["--json", "--insecure", "--help", "-h"]

    static func parseThrowing(_ args: [String], environment: [String: String]) throws(UsageError) -> Invocation {
        var options = ClientOptions()
        if let list = environment["FOLDSYNC_URL"], !list.isEmpty {
            options.urls = try urlList([list], from: "FOLDSYNC_URL")
        }
        if let token = environment["FOLDSYNC_TOKEN"], !token.isEmpty { options.token = token }
        if let command = environment["FOLDSYNC_TOKEN_COMMAND"], !command.isEmpty { options.tokenCommand = command }
        if args == ["--version"] { return Invocation(command: .text("foldsync \(DaemonVersion.string)\n"), options: options) }
        if args == ["--man"] { return Invocation(command: .text(CommandTable.manPage.roff), options: options) }
        var values: [String: String] = [:]
        var urls: [String] = []
        var help = false
        var positional: [String] = []
        var i = 0
        var onlyPositional = false
        while i < args.count {
            let arg = args[i]
            i += 1
            if onlyPositional || !arg.hasPrefix("-") || arg == "-" || isNegativeNumber(arg) {
                positional.append(arg)
                continue
            }
            if arg == "--" { onlyPositional = true; continue }
            var name = arg
            var inline: String? = nil
            if let eq = arg.firstIndex(of: "="), arg.hasPrefix("--") {
                name = String(arg[..<eq])
                inline = String(arg[arg.index(after: eq)...])
            }
            if flags.contains(name) {
                guard inline == nil else { throw UsageError("\(name) takes no value") }
                switch name {
                case "--json": options.json = true
                case "--insecure": options.insecure = true
                default: help = true
                }
            } else if valued.contains(name) {
                let value: String
                if let inline {
                    value = inline
                } else {
                    guard i < args.count else { throw UsageError("\(name) needs a value") }
                    value = args[i]
                    i += 1
                }
                values[name] = value
                if name == "--url" { urls.append(value) }
            } else {
                throw UsageError("unknown option \(name)")
            }
        }
        if !urls.isEmpty { options.urls = try urlList(urls, from: "--url") }
        if let board = values["--board"] { options.board = board }
        if let token = values["--token"] { options.token = token }
        if let command = values["--token-command"] { options.tokenCommand = command }
        if values["--token"] != nil && values["--token-command"] != nil {
            throw UsageError("--token and --token-command are two ways to give one token: use one")
        }
        // A command given anywhere wins over a fixed token from the environment.
        if options.tokenCommand != nil && values["--token"] == nil { options.token = nil }
        if let t = values["--timeout"] {
            guard let s = Double(t), s > 0, s <= 3600 else { throw UsageError("--timeout needs a number of seconds (0-3600)") }
            options.timeout = s
        }
        guard Names.isValid(options.board) else {
            throw UsageError("board name '\(options.board)' must be 1-64 characters of [A-Za-z0-9_.-]")
        }
        let name = positional.first
        if help { return Invocation(command: .help(name), options: options) }
        guard let name else {
            try only([], values, "the live view")
            return Invocation(command: .live, options: options)
        }
        guard let spec = CommandTable.spec(name) else {
            throw UsageError("unknown command '\(name)' (foldsync --help lists them)")
        }
        let rest = Array(positional.dropFirst())
        let command = try command(spec, rest, values)
        return Invocation(command: command, options: options)
    }

    /// Every URL of the values, each maybe a comma list; none may be empty.
    private static func urlList(_ values: [String], from source: String) throws(UsageError) -> [String] {
        let urls = values.flatMap { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        guard !urls.contains(where: \.isEmpty) else { throw UsageError("\(source) has an empty URL in its list") }
        guard urls.count <= 16 else { throw UsageError("\(source): at most 16 URLs") }
        return urls
    }

    private static func isNegativeNumber(_ s: String) -> Bool {
        s.count > 1 && s.hasPrefix("-") && Int(s.dropFirst()) != nil
    }

    /// Refuses command-specific options given to a command that has none of them.
    private static func only(_ allowed: Set<String>, _ values: [String: String], _ what: String) throws(UsageError) {
        for key in ["--items", "--at", "--id", "--since", "--before", "--limit"] where values[key] != nil && !allowed.contains(key) {
            throw UsageError("\(key) is not an option of \(what)")
        }
    }

    private static func count(_ spec: CommandSpec, _ rest: [String], _ n: Int) throws(UsageError) {
        guard rest.count == n else {
            throw UsageError("usage: foldsync \(spec.usage)")
        }
    }

    private static func index(_ text: String, _ what: String) throws(UsageError) -> Int {
        guard let n = Int(text), n >= 0 else { throw UsageError("\(what) must be a number >= 0, not '\(text)'") }
        return n
    }

    private static func command(_ spec: CommandSpec, _ rest: [String], _ values: [String: String]) throws(UsageError) -> Command {
        let own: [String: Set<String>] = ["add-section": ["--items", "--at", "--id"], "history": ["--since", "--before", "--limit"]]
        try only(own[spec.name] ?? [], values, spec.name)
        switch spec.name {
        case "boards": try count(spec, rest, 0); return .boards
        case "show": try count(spec, rest, 0); return .show
        case "dump": try count(spec, rest, 0); return .dump
        case "watch": try count(spec, rest, 0); return .watch
        case "toggle", "expand", "collapse":
            try count(spec, rest, 1)
            return .fold(Command.FoldKind(rawValue: spec.name)!, section: rest[0])
        case "expand-all": try count(spec, rest, 0); return .expandAll
        case "collapse-all": try count(spec, rest, 0); return .collapseAll
        case "mode":
            try count(spec, rest, 1)
            guard let mode = BoardMode(rawValue: rest[0]) else { throw UsageError("mode must be single or multi") }
            return .mode(mode)
        case "add-section":
            try count(spec, rest, 1)
            let items = values["--items"].map { $0.isEmpty ? [] : $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) } ?? []
            let at = try values["--at"].map { (t: String) throws(UsageError) -> Int in try index(t, "--at") }
            if let id = values["--id"], !Names.isValid(id) {
                throw UsageError("section id '\(id)' must be 1-64 characters of [A-Za-z0-9_.-]")
            }
            return .addSection(title: rest[0], items: items, at: at, id: values["--id"])
        case "remove-section": try count(spec, rest, 1); return .removeSection(rest[0])
        case "move-section":
            try count(spec, rest, 2)
            return .moveSection(rest[0], to: try index(rest[1], "N"))
        case "set-title": try count(spec, rest, 2); return .setTitle(rest[0], title: rest[1])
        case "set-items":
            guard !rest.isEmpty else { throw UsageError("usage: foldsync \(spec.usage)") }
            return .setItems(rest[0], items: Array(rest.dropFirst()))
        case "focus": try count(spec, rest, 2); return .focus(rest[0], item: rest[1])
        case "clear-focus": try count(spec, rest, 0); return .clearFocus
        case "load": try count(spec, rest, 1); return .load(rest[0])
        case "history":
            try count(spec, rest, 0)
            func number(_ key: String) throws(UsageError) -> Int? { try values[key].map { (t: String) throws(UsageError) -> Int in try index(t, key) } }
            let since = try number("--since"), before = try number("--before"), limit = try number("--limit")
            if since != nil && before != nil { throw UsageError("give --since or --before, not both") }
            if let limit, !(1...HistoryBody.maxLimit).contains(limit) { throw UsageError("--limit must be 1...\(HistoryBody.maxLimit)") }
            return .history(since: since, before: before, limit: limit)
        case "revert":
            try count(spec, rest, 1)
            guard let rev = Int(rest[0]), rev >= 1 else { throw UsageError("REV must be a rev number >= 1, not '\(rest[0])'") }
            return .revert(rev)
        default: throw UsageError("unknown command '\(spec.name)'")
        }
    }
}

