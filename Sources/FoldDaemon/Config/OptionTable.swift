import FoldCore
import FoldTransport
import Foundation

/// One configurable key: its flag is `--key`, its help line is `help`.
struct ConfigOption: Sendable {
    let key: String
    let value: String
    let help: String
    /// False for keys whose environment name would collide or leak (tokens).
    var fromEnvironment = true
    let apply: @Sendable (inout DaemonConfig, String) -> String?
}

/// A bad command line or configuration value, reported in one line.
public struct ConfigError: Error, CustomStringConvertible {
    public let description: String
}

/// The table behind flags and `--help`. Each `apply` returns nil, or why the value is bad.
enum OptionTable {
    static func int(_ range: ClosedRange<Int>, _ set: @escaping @Sendable (inout DaemonConfig, Int) -> Void)
        -> @Sendable (inout DaemonConfig, String) -> String?
    {
        { config, text in
            guard let n = Int(text.replacingUnderscores), range.contains(n) else {
                return "expects an integer in \(range.lowerBound)...\(range.upperBound), got '\(text)'"
            }
            set(&config, n)
            return nil
        }
    }

    static func bool(_ set: @escaping @Sendable (inout DaemonConfig, Bool) -> Void) -> @Sendable (inout DaemonConfig, String) -> String? {
        { config, text in
            switch text.lowercased() {
            case "true", "yes", "on", "1": set(&config, true)
            case "false", "no", "off", "0": set(&config, false)
            default: return "expects true or false, got '\(text)'"
            }
            return nil
        }
    }

    static let options: [ConfigOption] = [
        ConfigOption(key: "listen", value: "HOST:PORT", help: "address to serve WebSocket and HTTP on (default 127.0.0.1:7681; port 0 picks one)") { c, v in
            guard let (host, port) = parseListen(v) else { return "expects HOST:PORT with an IP address, got '\(v)'" }
            c.transport.host = host
            c.transport.port = port
            return nil
        },
        ConfigOption(key: "db", value: "PATH", help: "SQLite store (default ./foldsync.db, or $STATE_DIRECTORY/foldsync.db)") { c, v in
            guard !v.isEmpty else { return "expects a path" }
            c.db = v
            return nil
        },
        ConfigOption(key: "log-level", value: "LEVEL", help: "error, warning, info (default) or debug") { c, v in
            guard let l = LogLevel(name: v) else { return "expects error, warning, info or debug, got '\(v)'" }
            c.logLevel = l
            return nil
        },
        ConfigOption(key: "event-loop", value: "LOOP", help: "libev (default), libuv or poll") { c, v in
            guard let l = EventLoop(rawValue: v) else { return "expects libev, libuv or poll, got '\(v)'" }
            c.transport.eventLoop = l
            return nil
        },
        ConfigOption(key: "web-root", value: "DIR", help: "dashboard files (default: installed location, else clients/web)") { c, v in
            c.webRoot = v
            return nil
        },
        ConfigOption(key: "max-message-bytes", value: "N", help: "largest WebSocket message (default 65536; over: close 1009)",
                     apply: int(256...(64 << 20)) { $0.transport.maxMessageBytes = $1 }),
        ConfigOption(key: "max-body-bytes", value: "N", help: "largest HTTP request body (default 8 MiB; over: 413)",
                     apply: int(256...(256 << 20)) { $0.transport.maxBodyBytes = $1 }),
        ConfigOption(key: "coalesce-ms", value: "MS", help: "under a heavy stream, gather a batching client's messages this long between writes (default 20; 0: never)",
                     apply: int(0...1000) { $0.transport.coalesceMs = $1 }),
        ConfigOption(key: "history-per-board", value: "N", help: "changes kept per board for resume (default 1000)",
                     apply: int(1...1_000_000) { $0.historyPerBoard = $1 }),
        ConfigOption(key: "max-boards", value: "N", help: "boards in the store (default 1000)",
                     apply: int(1...1_000_000) { $0.limits.maxBoards = $1 }),
        ConfigOption(key: "max-sections", value: "N", help: "sections per board (default 5000)",
                     apply: int(1...1_000_000) { $0.limits.maxSections = $1 }),
        ConfigOption(key: "max-items", value: "N", help: "items per section (default 10000)",
                     apply: int(0...10_000_000) { $0.limits.maxItems = $1 }),
        ConfigOption(key: "max-title-bytes", value: "N", help: "UTF-8 bytes per section title (default 1024)",
                     apply: int(1...(1 << 20)) { $0.limits.maxTitleBytes = $1 }),
        ConfigOption(key: "max-item-bytes", value: "N", help: "encoded bytes per item (default 4096)",
                     apply: int(2...(16 << 20)) { $0.limits.maxItemBytes = $1 }),
        ConfigOption(key: "max-board-bytes", value: "N", help: "encoded bytes per board document (default 4 MiB)",
                     apply: int(64...(256 << 20)) { $0.limits.maxBoardBytes = $1 }),
        ConfigOption(key: "max-queue-frames", value: "N", help: "messages queued per connection before a resync snapshot (default 1024)",
                     apply: int(8...1_000_000) { $0.maxQueueFrames = $1 }),
        ConfigOption(key: "max-queue-bytes", value: "N", help: "bytes queued per connection before a resync snapshot (default 8 MiB)",
                     apply: int(4096...(1 << 30)) { $0.maxQueueBytes = $1 }),
        ConfigOption(key: "slow-client-timeout", value: "SECONDS", help: "stall after a resync before closing with 1008 (default 10)",
                     apply: int(1...3600) { $0.slowClientSeconds = $1 }),
        ConfigOption(key: "ping-interval", value: "SECONDS", help: "idle seconds before a WebSocket PING; twice that without PONG drops the peer (default 30)",
                     apply: int(1...3600) { $0.transport.pingSeconds = $1; $0.transport.hangupSeconds = 2 * $1 }),
        ConfigOption(key: "handshake-timeout", value: "SECONDS", help: "time a client has to finish its request or WebSocket handshake (default 10)",
                     apply: int(1...600) { $0.transport.handshakeTimeout = $1 }),
        ConfigOption(key: "store-busy-timeout", value: "MS", help: "how long a commit waits for a store lock before failing (default 2000)",
                     apply: int(1...600_000) { $0.storeBusyMs = $1 }),
        ConfigOption(key: "shutdown-timeout", value: "SECONDS", help: "bound on a graceful shutdown (default 10)",
                     apply: int(1...3600) { $0.shutdownTimeout = $1 }),
        ConfigOption(key: "token", value: "'NAME PERMS SHA256 [GLOB]'", help: "a token (repeatable): PERMS is a comma list of read, fold, edit, admin", fromEnvironment: false) { c, v in
            switch AccessToken.parse(v) {
            case .failure(let e): return e.message
            case .success(let t):
                guard !c.access.tokens.contains(where: { $0.name == t.name }) else { return "token '\(t.name)' is defined twice" }
                c.access.tokens.append(t)
                return nil
            }
        },
        ConfigOption(key: "allow-anonymous", value: "BOOL", help: "allow listening beyond loopback without tokens (default false)",
                     apply: bool { $0.allowAnonymous = $1 }),
        ConfigOption(key: "allow-origin", value: "ORIGIN", help: "another origin whose pages may connect (repeatable, or comma list)") { c, v in
            for o in v.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !o.isEmpty {
                guard o.hasPrefix("http://") || o.hasPrefix("https://") else { return "expects an origin like https://host:port, got '\(o)'" }
                c.allowOrigins.append(o)
            }
            return nil
        },
        ConfigOption(key: "allow-query-token", value: "BOOL", help: "accept ?token= on the WebSocket URL (default false: URLs end up in logs)",
                     apply: bool { $0.allowQueryToken = $1 }),
        ConfigOption(key: "metrics-public", value: "BOOL", help: "serve /metrics without a token (default false)",
                     apply: bool { $0.metricsPublic = $1 }),
        ConfigOption(key: "auth-timeout", value: "SECONDS", help: "time a WebSocket client has to present a token (default 10)",
                     apply: int(1...3600) { $0.authTimeout = $1 }),
        ConfigOption(key: "max-connections", value: "N", help: "WebSocket connections in all (default 100000; over: 503)",
                     apply: int(1...10_000_000) { $0.maxConnections = $1 }),
        ConfigOption(key: "max-connections-per-ip", value: "N", help: "WebSocket connections per peer address, loopback not counted (default 1000)",
                     apply: int(1...10_000_000) { $0.maxConnectionsPerIP = $1 }),
        ConfigOption(key: "per-ip-counts-loopback", value: "BOOL", help: "count loopback peers against max-connections-per-ip too (default false)",
                     apply: bool { $0.perIPCountsLoopback = $1 }),
        ConfigOption(key: "max-actions-per-second", value: "N", help: "messages per second per connection, sustained (default 100; over: rate_limited)",
                     apply: int(1...1_000_000) { $0.maxActionsPerSecond = $1 }),
        ConfigOption(key: "action-burst", value: "N", help: "messages a connection may send at once (default 200)",
                     apply: int(1...10_000_000) { $0.actionBurst = $1 }),
        ConfigOption(key: "max-subscriptions", value: "N", help: "boards one connection may subscribe to (default 100)",
                     apply: int(1...1_000_000) { $0.maxSubscriptions = $1 }),
        ConfigOption(key: "tls-cert", value: "PATH", help: "PEM certificate: with tls-key, serve https:// and wss:// (SIGHUP re-reads it)") { c, v in
            c.transport.tlsCert = v
            return nil
        },
        ConfigOption(key: "tls-key", value: "PATH", help: "PEM private key for tls-cert") { c, v in
            c.transport.tlsKey = v
            return nil
        },
    ]

    static func find(_ key: String) -> ConfigOption? { options.first { $0.key == key } }

    /// `HOST:PORT` or `[V6]:PORT`, host an IP literal.
    static func parseListen(_ s: String) -> (String, Int)? {
        var host: Substring
        var portText: Substring
        if s.hasPrefix("[") {
            guard let close = s.firstIndex(of: "]"), s[s.index(after: close)...].hasPrefix(":") else { return nil }
            host = s[s.index(after: s.startIndex)..<close]
            portText = s[s.index(close, offsetBy: 2)...]
        } else {
            guard let colon = s.lastIndex(of: ":") else { return nil }
            host = s[..<colon]
            portText = s[s.index(after: colon)...]
        }
        if host == "localhost" { host = "127.0.0.1" }
        guard let port = Int(portText), (0...65535).contains(port), isIPLiteral(String(host)) else { return nil }
        return (String(host), port)
    }

    static func isIPLiteral(_ s: String) -> Bool {
        let parts = s.split(separator: ".", omittingEmptySubsequences: false)
        if parts.count == 4, parts.allSatisfy({ p in !p.isEmpty && p.count <= 3 && p.allSatisfy(\.isNumber) && Int(p)! <= 255 }) {
            return true
        }
        return s.contains(":") && s.allSatisfy { $0.isHexDigit || $0 == ":" || $0 == "." }
    }
}

extension String {
    var replacingUnderscores: String { filter { $0 != "_" } }
}
