import FoldCore

/// Every option, declared once (see `ConfigOption`): flags, the file, the
/// environment, `--help` and reload all walk this table.
public enum OptionTable {
    /// The transport's event loops (FoldTransport's `EventLoop` raw values).
    public static let eventLoops = ["libev", "libuv", "poll"]

    public static let options: [ConfigOption] = [
        ConfigOption(key: "listen", value: "HOST:PORT", help: "address to serve WebSocket and HTTP on (port 0 picks one)", live: false,
                     apply: { c, v in
                         guard let (host, port) = parseListen(v) else { return "expects HOST:PORT with an IP address, got '\(v)'" }
                         c.host = host
                         c.port = port
                         return nil
                     },
                     show: { $0.listen }, keep: { c, old in c.host = old.host; c.port = old.port }),
        .string("db", "PATH", "SQLite store ($STATE_DIRECTORY/foldsync.db under systemd)", live: false, \.db) { $0.isEmpty ? "expects a path" : nil },
        .field("store", "URI", "postgresql://USER@HOST:PORT/DB: boards in PostgreSQL, shared by several daemons (then db is unused)",
               live: false, \.store, show: StoreURI.redacted) { v in
            StoreURI.isPostgres(v) || v.isEmpty ? .success(v) : .failure(Why("expects a postgresql:// URI, got '\(StoreURI.redacted(v))'"))
        },
        .field("log-level", "LEVEL", "error, warning, info or debug", live: true, \.logLevel, show: { $0.name }) { v in
            LogLevel(name: v).map { .success($0) } ?? .failure(Why("expects error, warning, info or debug, got '\(v)'"))
        },
        .string("event-loop", "LOOP", "libev, libuv or poll", live: false, \.eventLoop) { v in
            eventLoops.contains(v) ? nil : "expects libev, libuv or poll, got '\(v)'"
        },
        .string("web-root", "DIR", "dashboard files (default: beside the executable, ../share/foldsync/web or a build tree's clients/web, then /usr/share/foldsync/web, /usr/local/share/foldsync/web, ./clients/web)", live: true, \.webRoot),
        .int("max-message-bytes", "largest WebSocket message (over: close 1009)", live: true, 256...(64 << 20), \.maxMessageBytes),
        .int("max-body-bytes", "largest HTTP request body (over: 413)", live: true, 256...(256 << 20), \.maxBodyBytes),
        .int("coalesce-ms", "MS", "under a heavy stream, gather a client's messages at least this long between writes, longer when many streams are heavy (0: never)", live: false, 0...1000, \.coalesceMs),
        .int("history-per-board", "changes kept per board for resume, and at least this many in the history", live: false, 1...1_000_000, \.retention.historyPerBoard),
        .field("history-days", "DAYS", "days a change stays in the history (fractions allowed; 0: only the last history-per-board)",
               live: true, \.retention.historyDays, show: { $0 == $0.rounded() ? String(Int($0)) : String($0) }) { v in
            guard let d = Double(v), d.isFinite, d >= 0, d <= 36_500 else { return .failure(Why("expects a number of days in 0...36500, got '\(v)'")) }
            return .success(d)
        },
        .int("action-key-hours", "HOURS", "hours an action's key is kept at least, so a repeat is answered and not applied again (also while its rev is among the last history-per-board)", live: true, 1...8_760, \.retention.actionKeyHours),
        .int("action-keys-per-board", "keys of keyed actions kept per board at most (the oldest are forgotten first)", live: true, 16...1_000_000, \.retention.actionKeysPerBoard),
        .int("max-boards", "boards in the store", live: true, 1...1_000_000, \.limits.maxBoards),
        .int("max-sections", "sections per board", live: true, 1...1_000_000, \.limits.maxSections),
        .int("max-items", "items per section", live: true, 0...10_000_000, \.limits.maxItems),
        .int("max-title-bytes", "UTF-8 bytes per section title", live: true, 1...(1 << 20), \.limits.maxTitleBytes),
        .int("max-item-bytes", "encoded bytes per item", live: true, 2...(16 << 20), \.limits.maxItemBytes),
        .int("max-board-bytes", "encoded bytes per board document", live: true, 64...(256 << 20), \.limits.maxBoardBytes),
        .int("max-queue-frames", "messages queued per connection before a resync snapshot", live: true, 8...1_000_000, \.clients.maxQueueFrames),
        .int("max-queue-bytes", "bytes queued per connection before a resync snapshot", live: true, 4096...(1 << 30), \.clients.maxQueueBytes),
        .int("slow-client-timeout", "SECONDS", "stall after a resync before closing with 1008", live: true, 1...3600, \.clients.slowClientSeconds),
        .int("ping-interval", "SECONDS", "seconds without a word from a WebSocket peer before a PING; twice that in silence closes it (1008)", live: false, 1...3600, \.pingSeconds),
        .int("handshake-timeout", "SECONDS", "time a client has to finish its request or WebSocket handshake", live: false, 1...600, \.handshakeTimeout),
        .int("store-busy-timeout", "MS", "how long a commit waits for a store lock before failing", live: false, 1...600_000, \.storeBusyMs),
        .int("shutdown-timeout", "SECONDS", "bound on a graceful shutdown", live: true, 1...3600, \.shutdownTimeout),
        .int("board-idle", "SECONDS", "seconds a board nobody watches stays in memory after its last use; then only its position and action keys are kept, and the next use reads it from the store again", live: true, 1...86_400, \.boardIdle),
        .int("stream-heartbeat", "SECONDS", "seconds between heartbeat comments on an event stream (GET /api/boards/NAME/events); a reader that went away is noticed at the next one", live: true, 1...300, \.streamHeartbeat),
        ConfigOption(key: "token", value: "'NAME PERMS SHA256 [GLOB]'", help: "a token (repeatable): PERMS is a comma list of read, fold, edit, admin",
                     live: true, fromEnvironment: false,
                     apply: { c, v in
                         switch AccessToken.parse(v) {
                         case .failure(let e): return e.message
                         case .success(let t):
                             guard !c.access.tokens.contains(where: { $0.name == t.name }) else { return "token '\(t.name)' is defined twice" }
                             c.access.tokens.append(t)
                             return nil
                         }
                     },
                     // Names and permissions only: a reload report must not show hashes.
                     show: { $0.access.tokens.isEmpty ? "" : "\($0.access.tokens.map(\.name).joined(separator: ",")) (\($0.access.tokens.count) configured)" },
                     keep: { c, old in c.access = old.access }),
        ConfigOption(key: "jwt-key", value: "ALG:PATH[:kid=ID]", help: "a key JWTs are verified with (repeatable): HS256/384/512 and a secret file of at least 32 bytes, RS256/384/512, PS256/384/512, ES256/384/512 or EdDSA and a PEM public key, or jwks:PATH (a JWK Set; every key names its alg and kid); files are re-read on SIGHUP",
                     live: true, fromEnvironment: false,
                     apply: { c, v in
                         switch JWTKeySpec.parse(v) {
                         case .failure(let e): return e.description
                         case .success(let spec): c.jwtKeys.append(spec); return nil
                         }
                     },
                     show: { $0.jwtKeys.map(\.description).joined(separator: ",") },
                     keep: { c, old in c.jwtKeys = old.jwtKeys }),
        .string("jwt-issuer", "ISS", "when set, a JWT's iss claim must be this", live: true, \.jwtIssuer),
        .string("jwt-audience", "AUD", "when set, a JWT's aud claim must hold this", live: true, \.jwtAudience),
        .int("jwt-leeway", "SECONDS", "clock skew allowed on a JWT's exp, nbf and iat", live: true, 0...3600, \.jwtLeeway),
        .int("jwt-refresh-before", "SECONDS", "seconds before a JWT's exp when the connection is told authExpiring (send a new token with auth)", live: true, 1...86_400, \.jwtRefreshBefore),
        .bool("allow-anonymous", "allow listening beyond loopback without tokens", live: true, \.allowAnonymous),
        ConfigOption(key: "allow-origin", value: "ORIGIN", help: "another origin whose pages may connect (repeatable, or comma list)", live: true,
                     apply: { c, v in
                         for o in v.split(separator: ",").map(\.trimmingBlanks) where !o.isEmpty {
                             guard o.hasPrefix("http://") || o.hasPrefix("https://") else { return "expects an origin like https://host:port, got '\(o)'" }
                             c.web.allowOrigins.append(o)
                         }
                         return nil
                     },
                     show: { $0.web.allowOrigins.joined(separator: ",") }, keep: { c, old in c.web.allowOrigins = old.web.allowOrigins }),
        .bool("allow-query-token", "accept ?token= on the WebSocket URL (URLs end up in logs)", live: true, \.web.allowQueryToken),
        .bool("metrics-public", "serve /metrics without a token", live: true, \.web.metricsPublic),
        .int("auth-timeout", "SECONDS", "time a WebSocket client has to present a token", live: true, 1...3600, \.clients.authTimeout),
        .int("max-connections", "WebSocket connections in all (over: 503)", live: true, 1...10_000_000, \.clients.maxConnections),
        .int("max-connections-per-ip", "WebSocket connections per peer address, loopback not counted", live: true, 1...10_000_000, \.clients.maxConnectionsPerIP),
        .bool("per-ip-counts-loopback", "count loopback peers against max-connections-per-ip too", live: true, \.clients.perIPCountsLoopback),
        .int("max-actions-per-second", "messages per second per connection, sustained (over: rate_limited)", live: true, 1...1_000_000, \.clients.maxActionsPerSecond),
        .int("action-burst", "messages a connection may send at once", live: true, 1...10_000_000, \.clients.actionBurst),
        .int("max-subscriptions", "boards one connection may subscribe to", live: true, 1...1_000_000, \.clients.maxSubscriptions),
        .string("tls-cert", "PATH", "PEM certificate: with tls-key, serve https:// and wss:// (SIGHUP re-reads the file)", live: false, \.tlsCert),
        .string("tls-key", "PATH", "PEM private key for tls-cert", live: false, \.tlsKey),
    ]

    public static func find(_ key: String) -> ConfigOption? { options.first { $0.key == key } }

    /// Keys of options that are gone, still accepted (and ignored) in a
    /// configuration file so that one written for an older release loads:
    /// `io-uring` (io_uring is not used; docs/PERFORMANCE.md, "Measured and
    /// not kept", says why).
    /// Not flags or environment variables: those are typed anew.
    public static let retired: Set<String> = ["io-uring"]

    /// `HOST:PORT` or `[V6]:PORT`, host an IP literal (`localhost` is 127.0.0.1).
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
