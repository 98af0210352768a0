import FoldConfig
import FoundationEssentials
import FoldCore
import FoldHub

/// `foldsyncd backup [--db PATH | --store URI] OUT` and
/// `foldsyncd restore IN [--db PATH | --store URI]`: the store is the one
/// named, else the one the configuration (file, environment) names.
public struct MaintenanceCommand: Sendable {
    public enum Kind: String, Sendable { case backup, restore }
    public var kind: Kind
    /// OUT for a backup, IN for a restore.
    public var file: String
    /// The SQLite file, or (non-empty) a PostgreSQL URI.
    public var db: String
    public var store: String

    static func parse(_ kind: Kind, _ args: [String], environment: [String: String]) throws(ConfigError) -> MaintenanceCommand {
        var sources = ConfigSources()
        sources.environment = environment
        var db: String?, store: String?
        var positional: [String] = []
        var i = 0
        while i < args.count {
            var arg = args[i]
            i += 1
            var value: String?
            if let eq = arg.firstIndex(of: "="), arg.hasPrefix("--") {
                value = String(arg[arg.index(after: eq)...])
                arg = String(arg[..<eq])
            }
            guard ["--db", "--store", "--config"].contains(arg) else {
                guard !arg.hasPrefix("--") else { throw ConfigError(description: "\(kind.rawValue) takes --db PATH, --store URI or --config PATH, not '\(arg)'") }
                positional.append(arg)
                continue
            }
            if value == nil {
                guard i < args.count else { throw ConfigError(description: "option '\(arg)' needs a value") }
                value = args[i]
                i += 1
            }
            switch arg {
            case "--db": db = value
            case "--store": store = value
            default:
                sources.file = value
                sources.fileExplicit = true
            }
        }
        let what = kind == .backup ? "OUT" : "IN"
        guard positional.count == 1 else {
            throw ConfigError(description: "usage: foldsyncd \(kind.rawValue) \(kind == .backup ? "[--db PATH | --store URI] OUT" : "IN [--db PATH | --store URI]") (one \(what) file)")
        }
        if db == nil && store == nil {
            if sources.file == nil, FileManager.default.fileExists(atPath: ConfigSources.defaultFile) { sources.file = ConfigSources.defaultFile }
            let (config, problems) = sources.resolve()
            if !problems.isEmpty { throw ConfigError(description: problems.map(\.description).joined(separator: "\nfoldsyncd: ")) }
            db = config.db
            store = config.store
        }
        return MaintenanceCommand(kind: kind, file: positional[0], db: db ?? DaemonConfig(environment: environment).db, store: store ?? "")
    }
}
