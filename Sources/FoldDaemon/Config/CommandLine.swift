import FoldConfig
import FoundationEssentials
import FoldCore
import FoldHub

/// What the command line asks for.
public enum DaemonCommand: Sendable {
    case run(DaemonConfig, ConfigSources)
    case checkConfig(ConfigSources)
    case help(String)
    case version(String)
    /// `foldsyncd hash-token`: reads a secret on stdin, prints its SHA-256.
    case hashToken
    /// `foldsyncd migrate-store FROM TO [--overwrite]`: copies every board with its history.
    case migrateStore(from: String, to: String, overwrite: Bool)
    /// `foldsyncd backup ... OUT`, `foldsyncd restore IN ...`.
    case maintenance(MaintenanceCommand)
}

extension DaemonCommand {
    /// Parses `foldsyncd [--key value | --key=value]...`. A bad flag is one
    /// line; problems in the file or environment are listed one per line.
    public static func parse(_ args: [String], environment: [String: String]) throws(ConfigError) -> DaemonCommand {
        var sources = ConfigSources()
        sources.environment = environment
        if let first = args.first, let kind = MaintenanceCommand.Kind(rawValue: first) {
            return .maintenance(try MaintenanceCommand.parse(kind, Array(args.dropFirst()), environment: environment))
        }
        if args.first == "hash-token" {
            guard args.count == 1 else { throw ConfigError(description: "hash-token takes no arguments; it reads the secret on stdin") }
            return .hashToken
        }
        if args.first == "migrate-store" {
            let rest = args.dropFirst()
            let overwrite = rest.contains("--overwrite")
            let places = rest.filter { $0 != "--overwrite" }
            guard places.count == 2, !places.contains(where: { $0.hasPrefix("--") }) else {
                throw ConfigError(description: "usage: foldsyncd migrate-store FROM TO [--overwrite] (each a SQLite path, sqlite:PATH or postgresql://...)")
            }
            return .migrateStore(from: places[places.startIndex], to: places[places.startIndex + 1], overwrite: overwrite)
        }
        var check = false
        var i = 0
        while i < args.count {
            let arg = args[i]
            i += 1
            if arg == "--help" || arg == "-h" { return .help(usage) }
            if arg == "--version" || arg == "-V" { return .version("foldsyncd \(DaemonVersion.string)") }
            // Hidden: the man page in roff, for the package (made from the same tables as --help).
            if arg == "--man" { return .help(manPage.roff) }
            if arg == "--check-config" {
                check = true
                continue
            }
            guard arg.hasPrefix("--") else { throw ConfigError(description: "unexpected argument '\(arg)' (see --help)") }
            var key = String(arg.dropFirst(2))
            var value: String?
            if let eq = key.firstIndex(of: "=") {
                value = String(key[key.index(after: eq)...])
                key = String(key[..<eq])
            }
            guard key == "config" || OptionTable.find(key) != nil else {
                throw ConfigError(description: "unknown option '--\(key)' (see --help)")
            }
            if value == nil {
                guard i < args.count else { throw ConfigError(description: "option '--\(key)' needs a value") }
                value = args[i]
                i += 1
            }
            if key == "config" {
                sources.file = value!
                sources.fileExplicit = true
                continue
            }
            var scratch = DaemonConfig()
            if let problem = OptionTable.find(key)!.apply(&scratch, value!) {
                throw ConfigError(description: "--\(key) \(problem)")
            }
            sources.flags.append((key, value!))
        }
        if sources.file == nil, FileManager.default.fileExists(atPath: ConfigSources.defaultFile) {
            sources.file = ConfigSources.defaultFile
        }
        if check { return .checkConfig(sources) }
        let (config, problems) = sources.resolve()
        if !problems.isEmpty {
            throw ConfigError(description: problems.map(\.description).joined(separator: "\nfoldsyncd: "))
        }
        return .run(config, sources)
    }

    /// The commands beside serving, as `--help` and the man page list them.
    static let subcommands: [(usage: String, help: String)] = [
        ("hash-token", "reads a secret on stdin, prints the hash for a `token` line"),
        ("migrate-store FROM TO [--overwrite]",
         "copies every board, its epoch, rev and history: SQLite path, sqlite:PATH or postgresql://...; TO must be empty unless --overwrite"),
        ("backup [--db PATH] OUT", "a consistent copy of the SQLite store, while the daemon runs"),
        ("restore IN [--db PATH]", "the daemon stopped: replaces the store; every board gets a new epoch"),
    ]

    /// The flags that are not configuration keys.
    static let commandFlags: [(flag: String, value: String, help: String)] = [
        ("--config", "PATH", "configuration file (default \(ConfigSources.defaultFile) when it exists)"),
        ("--check-config", "", "validate the configuration, print each problem, exit 0 or 2"),
        ("--help", "", "this text"),
        ("--version", "", "print the version"),
    ]

    static let sourcesText = "Every option is also a configuration-file key (`key = value`) and an environment variable (FOLDSYNC_KEY); flags win over the environment, which wins over the file. SIGHUP re-reads them; what says \"restart to change\" keeps its old value until then."

    /// An option's help with its default and whether a reload changes it.
    static func optionHelp(_ o: ConfigOption) -> String {
        let notes = [o.defaultText.map { "default \($0)" }, o.live ? nil : "restart to change"].compactMap { $0 }
        return o.help + (notes.isEmpty ? "" : " (\(notes.joined(separator: "; ")))")
    }

    public static var usage: String {
        var lines = [
            "foldsyncd \(DaemonVersion.string): shared collapsible-section boards over WebSocket",
            "",
            "usage: foldsyncd [options]",
        ]
        for c in subcommands {
            lines.append(contentsOf: wrap("(\(c.help))", first: "       foldsyncd \(c.usage)", indent: 31, width: 100))
        }
        lines.append("")
        lines.append(contentsOf: wrap(sourcesText, first: "", indent: 0, width: 72))
        lines.append("")
        func row(_ flag: String, _ help: String) {
            // The help starts at column 34, or two spaces after a longer flag.
            lines.append(flag + String(repeating: " ", count: max(34 - flag.count, 2)) + help)
        }
        for o in OptionTable.options { row("  --\(o.key) \(o.value)", optionHelp(o)) }
        for f in commandFlags { row("  \(f.flag)" + (f.value.isEmpty ? "" : " \(f.value)"), f.help) }
        return lines.joined(separator: "\n")
    }

    /// `first` followed by `text`, filled to `width` columns; later lines start at column `indent`.
    static func wrap(_ text: String, first: String, indent: Int, width: Int) -> [String] {
        var lines: [String] = []
        var line = first
        let pad = String(repeating: " ", count: indent)
        for word in text.split(separator: " ") {
            let start = line.isEmpty || line == pad
            if !start, line.count + 1 + word.count > width {
                lines.append(line)
                line = pad
            }
            if line.isEmpty || line == pad { line += word } else {
                line += (line.count < indent ? String(repeating: " ", count: indent - line.count) : " ") + word
            }
        }
        lines.append(line)
        return lines
    }
}
