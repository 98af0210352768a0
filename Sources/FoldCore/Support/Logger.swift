/// Log levels, quietest first. `info` is the default: start, listen address,
/// shutdown and errors; `debug` adds one line per connection and request.
public enum LogLevel: Int, Sendable, Comparable, CaseIterable {
    case error = 0, warning, info, debug

    public init?(name: String) {
        switch name.lowercased() {
        case "error": self = .error
        case "warning", "warn": self = .warning
        case "info": self = .info
        case "debug": self = .debug
        default: return nil
        }
    }

    /// The syslog priority, for the journal's `<N>` prefix.
    public var syslogPriority: Int {
        switch self {
        case .error: 3
        case .warning: 4
        case .info: 6
        case .debug: 7
        }
    }

    public var name: String {
        switch self {
        case .error: "error"
        case .warning: "warning"
        case .info: "info"
        case .debug: "debug"
        }
    }

    public static func < (a: LogLevel, b: LogLevel) -> Bool { a.rawValue < b.rawValue }
}

/// A logger is a value: a level, a label and where lines go. The core never
/// writes anywhere itself; the executable passes a sink that writes stderr,
/// tests pass one that collects lines.
public struct Logger: Sendable {
    public var level: LogLevel
    public var label: String
    /// Receives each line's level and `[label] message`; decides the rest
    /// (a timestamp, a syslog prefix).
    public let leveledSink: @Sendable (LogLevel, String) -> Void

    /// Lines go to `sink` as `level [label] message`.
    public init(level: LogLevel = .info, label: String, sink: @escaping @Sendable (String) -> Void) {
        self.init(level: level, label: label, leveledSink: { l, text in sink("\(l.name) \(text)") })
    }

    public init(level: LogLevel = .info, label: String, leveledSink: @escaping @Sendable (LogLevel, String) -> Void) {
        self.level = level
        self.label = label
        self.leveledSink = leveledSink
    }

    /// A logger that drops everything, for code paths that need one but have nothing to say.
    public static let silent = Logger(level: .error, label: "", sink: { _ in })

    public func withLevel(_ level: LogLevel) -> Logger {
        Logger(level: level, label: label, leveledSink: leveledSink)
    }

    public func labelled(_ label: String) -> Logger {
        Logger(level: level, label: label, leveledSink: leveledSink)
    }

    public func log(_ level: LogLevel, _ message: @autoclosure () -> String) {
        guard level <= self.level else { return }
        leveledSink(level, "[\(label)] \(message())")
    }

    public func error(_ m: @autoclosure () -> String) { log(.error, m()) }
    public func warning(_ m: @autoclosure () -> String) { log(.warning, m()) }
    public func info(_ m: @autoclosure () -> String) { log(.info, m()) }
    public func debug(_ m: @autoclosure () -> String) { log(.debug, m()) }
}
