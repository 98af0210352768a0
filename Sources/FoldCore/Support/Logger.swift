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
    public let sink: @Sendable (String) -> Void

    public init(level: LogLevel = .info, label: String, sink: @escaping @Sendable (String) -> Void) {
        self.level = level
        self.label = label
        self.sink = sink
    }

    /// A logger that drops everything, for code paths that need one but have nothing to say.
    public static let silent = Logger(level: .error, label: "", sink: { _ in })

    public func withLevel(_ level: LogLevel) -> Logger {
        Logger(level: level, label: label, sink: sink)
    }

    public func labelled(_ label: String) -> Logger {
        Logger(level: level, label: label, sink: sink)
    }

    public func log(_ level: LogLevel, _ message: @autoclosure () -> String) {
        guard level <= self.level else { return }
        sink("\(level.name) [\(label)] \(message())")
    }

    public func error(_ m: @autoclosure () -> String) { log(.error, m()) }
    public func warning(_ m: @autoclosure () -> String) { log(.warning, m()) }
    public func info(_ m: @autoclosure () -> String) { log(.info, m()) }
    public func debug(_ m: @autoclosure () -> String) { log(.debug, m()) }
}
