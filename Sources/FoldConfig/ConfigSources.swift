import FoldCore
/// Where configuration comes from, kept so SIGHUP can rebuild it: flags win
/// over the environment (`FOLDSYNC_KEY`), which wins over the file.
public struct ConfigSources: Sendable {
    /// `--key value` pairs, already checked to name known keys.
    public var flags: [(key: String, value: String)] = []
    public var environment: [String: String] = [:]
    /// The file named by `--config`, or the default when it exists.
    public var file: String?
    /// True when `--config` named the file, so a missing file is an error.
    public var fileExplicit = false

    public static let defaultFile = "/etc/foldsync/foldsyncd.conf"

    public init() {}

    /// One problem, with its place (`file:line`, `--flag` or `$VAR`).
    public struct Problem: Sendable, Equatable, CustomStringConvertible {
        public var place: String
        public var message: String
        public var description: String { "\(place): \(message)" }
    }

    /// What reading `file` gave (the daemon reads it; this stays pure).
    public enum FileText: Sendable {
        /// No file configured, or the default one is absent.
        case none
        case text(String)
        case unreadable
    }

    /// Builds the configuration from scratch, collecting every problem.
    public func resolve(_ fileText: FileText) -> (DaemonConfig, [Problem]) {
        var config = DaemonConfig(environment: environment)
        var problems: [Problem] = []
        switch fileText {
        case .none: break
        case .unreadable: problems.append(Problem(place: file ?? "", message: "cannot read the configuration file"))
        case .text(let text):
            for (n, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let place = "\(file ?? ""):\(n + 1)"
                let trimmed = (raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? "").trimmingBlanks
                if trimmed.isEmpty { continue }
                guard let eq = trimmed.firstIndex(of: "=") else {
                    problems.append(Problem(place: place, message: "expected 'key = value'"))
                    continue
                }
                let key = trimmed[..<eq].trimmingBlanks
                // A file written for an older release still loads.
                if OptionTable.retired.contains(key) { continue }
                apply(key, trimmed[trimmed.index(after: eq)...].trimmingBlanks, place: place, to: &config, problems: &problems)
            }
        }
        for option in OptionTable.options where option.fromEnvironment {
            let name = Self.environmentName(option.key)
            if let value = environment[name] {
                apply(option.key, value, place: "$\(name)", to: &config, problems: &problems)
            }
        }
        for (key, value) in flags {
            apply(key, value, place: "--\(key)", to: &config, problems: &problems)
        }
        if config.tlsCert.isEmpty != config.tlsKey.isEmpty {
            problems.append(Problem(place: "tls", message: "tls-cert and tls-key go together"))
        }
        if config.access.isAnonymous && config.jwtKeys.isEmpty && !config.allowAnonymous && !Loopback.contains(config.host) {
            problems.append(Problem(place: "listen", message:
                "refusing to serve \(config.host) without tokens: configure a token, or set allow-anonymous = true"))
        }
        return (config, problems)
    }

    private func apply(_ key: String, _ value: String, place: String, to config: inout DaemonConfig, problems: inout [Problem]) {
        guard let option = OptionTable.find(key) else {
            problems.append(Problem(place: place, message: "unknown key '\(key)'"))
            return
        }
        if let why = option.apply(&config, value) {
            problems.append(Problem(place: place, message: "\(key) \(why)"))
        }
    }

    /// `max-message-bytes` → `FOLDSYNC_MAX_MESSAGE_BYTES`.
    public static func environmentName(_ key: String) -> String {
        "FOLDSYNC_" + String(key.uppercased().map { $0 == "-" ? "_" : $0 })
    }
}
