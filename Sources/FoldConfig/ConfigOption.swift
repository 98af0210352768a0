import FoldCore

/// One configurable key, declared once: its flag is `--key`, its file line
/// `key = value`, its environment variable `FOLDSYNC_KEY`; `--help` prints
/// `help` and the default; a reload compares it and, when it is not `live`,
/// keeps the old value until a restart.
public struct ConfigOption: Sendable {
    public let key: String
    /// The value's placeholder in `--help`.
    public let value: String
    public let help: String
    /// Applies on SIGHUP without a restart.
    public let live: Bool
    /// False for keys whose environment name would collide or leak (tokens).
    public var fromEnvironment = true
    /// Parses a value into the configuration: nil, or why the value is bad.
    public let apply: @Sendable (inout DaemonConfig, String) -> String?
    /// The value in a configuration, as `--help` and reload reports show it.
    public let show: @Sendable (DaemonConfig) -> String
    /// Copies this option's value from another configuration.
    let keep: @Sendable (inout DaemonConfig, DaemonConfig) -> Void

    /// `key old -> new` when the two configurations differ here.
    func diff(_ old: DaemonConfig, _ new: DaemonConfig) -> String? {
        let a = show(old), b = show(new)
        return a == b ? nil : "\(key) \(a) -> \(b)"
    }

    /// The default as `--help` shows it; nil when there is none to show.
    public var defaultText: String? {
        let d = show(DaemonConfig())
        return d.isEmpty ? nil : d
    }
}

extension ConfigOption {
    /// A field of the configuration, with its parser.
    static func field<T: Sendable>(
        _ key: String, _ value: String, _ help: String, live: Bool, _ path: WritableKeyPath<DaemonConfig, T> & Sendable,
        show: @escaping @Sendable (T) -> String, parse: @escaping @Sendable (String) -> Result<T, Why>
    ) -> ConfigOption {
        ConfigOption(
            key: key, value: value, help: help, live: live,
            apply: { c, text in
                switch parse(text) {
                case .success(let v): c[keyPath: path] = v; return nil
                case .failure(let why): return why.text
                }
            },
            show: { show($0[keyPath: path]) },
            keep: { c, old in c[keyPath: path] = old[keyPath: path] })
    }

    static func int(_ key: String, _ help: String, live: Bool, _ range: ClosedRange<Int>,
                    _ path: WritableKeyPath<DaemonConfig, Int> & Sendable) -> ConfigOption {
        int(key, "N", help, live: live, range, path)
    }

    static func int(_ key: String, _ value: String, _ help: String, live: Bool, _ range: ClosedRange<Int>,
                    _ path: WritableKeyPath<DaemonConfig, Int> & Sendable) -> ConfigOption {
        field(key, value, help, live: live, path, show: { String($0) }) { text in
            guard let n = Int(text.filter { $0 != "_" }), range.contains(n) else {
                return .failure(Why("expects an integer in \(range.lowerBound)...\(range.upperBound), got '\(text)'"))
            }
            return .success(n)
        }
    }

    static func bool(_ key: String, _ help: String, live: Bool, _ path: WritableKeyPath<DaemonConfig, Bool> & Sendable) -> ConfigOption {
        field(key, "BOOL", help, live: live, path, show: { String($0) }) { text in
            switch text.lowercased() {
            case "true", "yes", "on", "1": return .success(true)
            case "false", "no", "off", "0": return .success(false)
            default: return .failure(Why("expects true or false, got '\(text)'"))
            }
        }
    }

    static func string(_ key: String, _ value: String, _ help: String, live: Bool, _ path: WritableKeyPath<DaemonConfig, String> & Sendable,
                       check: @escaping @Sendable (String) -> String? = { _ in nil }) -> ConfigOption {
        field(key, value, help, live: live, path, show: { $0 }) { text in
            check(text).map { .failure(Why($0)) } ?? .success(text)
        }
    }
}

/// Why a value is bad, as a `Result` failure.
struct Why: Error {
    let text: String
    init(_ text: String) { self.text = text }
}

/// A bad command line or configuration value, reported in one line.
public struct ConfigError: Error, CustomStringConvertible {
    public let description: String
    public init(description: String) { self.description = description }
}
