import Foundation
import FoldCore

/// What the command line asks for.
public enum DaemonCommand: Sendable {
    case run(DaemonConfig)
    case help(String)
    case version(String)
}

public enum DaemonVersion {
    public static let string = "0.1.0"
}

extension DaemonCommand {
    /// Parses `foldsyncd [--key value | --key=value]...`. Errors are one line.
    public static func parse(_ args: [String], environment: [String: String]) throws(ConfigError) -> DaemonCommand {
        var config = DaemonConfig(environment: environment)
        var i = 0
        while i < args.count {
            let arg = args[i]
            i += 1
            if arg == "--help" || arg == "-h" { return .help(usage) }
            if arg == "--version" || arg == "-V" { return .version("foldsyncd \(DaemonVersion.string)") }
            guard arg.hasPrefix("--") else { throw ConfigError(description: "unexpected argument '\(arg)' (see --help)") }
            var key = String(arg.dropFirst(2))
            var value: String?
            if let eq = key.firstIndex(of: "=") {
                value = String(key[key.index(after: eq)...])
                key = String(key[..<eq])
            }
            guard let option = OptionTable.find(key) else {
                throw ConfigError(description: "unknown option '--\(key)' (see --help)")
            }
            if value == nil {
                guard i < args.count else { throw ConfigError(description: "option '--\(key)' needs a value") }
                value = args[i]
                i += 1
            }
            if let problem = option.apply(&config, value!) {
                throw ConfigError(description: "--\(key) \(problem)")
            }
        }
        return .run(config)
    }

    public static var usage: String {
        var lines = [
            "foldsyncd \(DaemonVersion.string): shared collapsible-section boards over WebSocket",
            "",
            "usage: foldsyncd [options]",
            "",
        ]
        for o in OptionTable.options {
            let flag = "  --\(o.key) \(o.value)"
            lines.append(flag.padding(toLength: max(32, flag.count + 2), withPad: " ", startingAt: 0) + o.help)
        }
        lines.append("  --help".padding(toLength: 32, withPad: " ", startingAt: 0) + "this text")
        lines.append("  --version".padding(toLength: 32, withPad: " ", startingAt: 0) + "print the version")
        return lines.joined(separator: "\n")
    }
}
