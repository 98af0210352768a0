import Foundation
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

    public static var usage: String {
        var lines = [
            "foldsyncd \(DaemonVersion.string): shared collapsible-section boards over WebSocket",
            "",
            "usage: foldsyncd [options]",
            "       foldsyncd hash-token    (reads a secret on stdin, prints the hash for a `token` line)",
            "       foldsyncd migrate-store FROM TO [--overwrite]",
            "                               (copies every board, its epoch, rev and history: SQLite path,",
            "                               sqlite:PATH or postgresql://...; TO must be empty unless --overwrite)",
            "       foldsyncd backup [--db PATH] OUT    (a consistent copy of the SQLite store, while the daemon runs)",
            "       foldsyncd restore IN [--db PATH]    (the daemon stopped: replaces the store; every board gets a new epoch)",
            "",
            "Every option is also a configuration-file key (`key = value`) and an",
            "environment variable (FOLDSYNC_KEY); flags win over the environment,",
            "which wins over the file. SIGHUP re-reads them; what says \"restart to",
            "change\" keeps its old value until then.",
            "",
        ]
        func row(_ flag: String, _ help: String) {
            lines.append(flag.padding(toLength: max(34, flag.count + 2), withPad: " ", startingAt: 0) + help)
        }
        for o in OptionTable.options {
            let notes = [o.defaultText.map { "default \($0)" }, o.live ? nil : "restart to change"].compactMap { $0 }
            row("  --\(o.key) \(o.value)", o.help + (notes.isEmpty ? "" : " (\(notes.joined(separator: "; ")))"))
        }
        row("  --config PATH", "configuration file (default \(ConfigSources.defaultFile) when it exists)")
        row("  --check-config", "validate the configuration, print each problem, exit 0 or 2")
        row("  --help", "this text")
        row("  --version", "print the version")
        return lines.joined(separator: "\n")
    }
}
