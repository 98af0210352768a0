/// Everything the benchmark is told, parsed once at the edge.
struct BenchConfig: Sendable {
    /// Daemon address, from `--url ws://HOST:PORT/ws`.
    var host = "127.0.0.1"
    var port = 7681
    var path = "/ws"
    /// Board the subscribers watch; created or replaced before the run.
    var board = "bench"
    var sections = 10
    var items = 0
    /// Subscribed connections (the publisher is one more).
    var connections = 1000
    /// Changes per second, and how long to send them (after the warm-up).
    var rate = 20.0
    var duration = 10.0
    var warmup = 1.0
    /// Bounded wait after the last send for stragglers.
    var grace = 2.0
    /// Seconds every connection stays open and quiet after set-up, before the first change.
    var hold = 0.0
    var batch = true
    var json = false
    var ramp = false
    /// Seconds per ramp step.
    var step = 3.0
    var pid: Int32?
    /// The core the server is pinned to: its whole busy time (the server
    /// and the kernel work left to ksoftirqd and interrupts) is reported too.
    var serverCore: Int?
    var connectConcurrency = 200
    /// Extra connections subscribed to the quiet board `bench-idle`.
    var idle = 0
    /// Target size of each patch message in bytes (the title is padded to reach it).
    var patchBytes = 100
    /// Which WebSocket client the connections run on.
    var client = ClientKind.epoll
    var wire = Wire.foldsync
    /// Ramp rates (changes/s), in order; the ramp stops at the first failure.
    var rampRates: [Double] = [50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000, 100_000]

    /// Several daemons of one cluster: subscribers (and writers) spread over
    /// `nodes` round-robin, the publisher on `publisherNode` (an index of
    /// `nodes`). Empty: the one daemon of `--url`.
    var nodes: [Node] = []
    var publisherNode: Int?
    /// Writer mode (`--writers N`): N connections each keeping `window`
    /// actions in flight, every one answered after its commit; no subscribers.
    var writers = 0
    var window = 8
    /// Writers on one board (`--shared-board`, single mode: the contended
    /// case), else each on its own.
    var sharedBoard = false
    /// Writer mode: each action carries a `key` (`--keys`).
    var keys = false
    /// Writer mode: threads reading history beside the writers (`--history-readers`),
    /// each the latest `historyLimit` entries twice a second.
    var historyReaders = 0
    var historyLimit = 1_000

    /// A daemon's address.
    struct Node: Sendable {
        var host: String
        var port: Int
        var path: String
        var url: String { "ws://\(host):\(port)\(path)" }
    }

    /// Every daemon the run talks to: `nodes`, or the one of `--url`.
    var allNodes: [Node] { nodes.isEmpty ? [Node(host: host, port: port, path: path)] : nodes }

    static let idleBoard = "bench-idle"
    static let sharedBoardName = "bench-shared"

    /// The subprotocols offered, in order of preference.
    var offer: [String] {
        if wire == .broadcast { return [] }
        return batch ? ["foldsync.v1.batch", "foldsync.v1"] : ["foldsync.v1"]
    }
}

/// `--client`: the benchmark's own epoll loop, or FoldTransport's
/// libwebsockets client (`WebClient`), both on this one thread.
enum ClientKind: String, Sendable {
    case epoll, lws
}

/// `--protocol`: what the server speaks. `broadcast` is the peer's plain
/// protocol: `subscribe` → `subscribed`, then every text a publisher sends,
/// to every subscriber, as it was sent (`t:<ns>:<seq>:` and padding).
enum Wire: String, Sendable {
    case foldsync, broadcast
}

/// A bad command line, reported in one line.
struct UsageError: Error, CustomStringConvertible {
    let description: String
}

/// One flag: `--key VALUE` (or a switch when `value` is empty) and its help line.
struct BenchOption: Sendable {
    let key: String
    let value: String
    let help: String
    let apply: @Sendable (inout BenchConfig, String) -> String?
}

extension BenchConfig {
    static func number(_ range: ClosedRange<Double>, _ set: @escaping @Sendable (inout BenchConfig, Double) -> Void)
        -> @Sendable (inout BenchConfig, String) -> String?
    {
        { c, v in
            guard let n = Double(v.filter { $0 != "_" }), range.contains(n) else { return "expects a number in \(range.lowerBound)...\(range.upperBound), got '\(v)'" }
            set(&c, n)
            return nil
        }
    }

    static func int(_ range: ClosedRange<Int>, _ set: @escaping @Sendable (inout BenchConfig, Int) -> Void)
        -> @Sendable (inout BenchConfig, String) -> String?
    {
        { c, v in
            guard let n = Int(v.filter { $0 != "_" }), range.contains(n) else { return "expects an integer in \(range.lowerBound)...\(range.upperBound), got '\(v)'" }
            set(&c, n)
            return nil
        }
    }

    static let options: [BenchOption] = [
        BenchOption(key: "url", value: "URL", help: "daemon WebSocket URL (default ws://127.0.0.1:7681/ws)") { c, v in
            switch node(v) {
            case .failure(let e): return e.description
            case .success(let n):
                c.host = n.host
                c.port = n.port
                c.path = n.path
                return nil
            }
        },
        BenchOption(key: "urls", value: "URL,URL,...", help: "several daemons of one cluster: subscribers and writers spread over them") { c, v in
            var nodes: [Node] = []
            for u in v.split(separator: ",") {
                switch node(String(u)) {
                case .failure(let e): return e.description
                case .success(let n): nodes.append(n)
                }
            }
            guard !nodes.isEmpty else { return "expects at least one URL" }
            c.nodes += nodes
            return nil
        },
        BenchOption(key: "publisher-url", value: "URL", help: "with --urls: the daemon the publisher sends to (default: the first)") { c, v in
            switch node(v) {
            case .failure(let e): return e.description
            case .success(let n):
                c.nodes.append(n)
                c.publisherNode = c.nodes.count - 1
                return nil
            }
        },
        BenchOption(key: "writers", value: "N", help: "writer mode: N connections writing as fast as acks come (no subscribers)",
                    apply: int(1...100_000) { $0.writers = $1 }),
        BenchOption(key: "window", value: "W", help: "writer mode: actions in flight per connection (default 8)",
                    apply: int(1...10_000) { $0.window = $1 }),
        BenchOption(key: "keys", value: "", help: "writer mode: every action carries a key (exactly-once), unique to this run") { c, _ in
            c.keys = true
            return nil
        },
        BenchOption(key: "shared-board", value: "", help: "writer mode: every writer on one single-mode board (default: a board each)") { c, _ in
            c.sharedBoard = true
            return nil
        },
        BenchOption(key: "history-readers", value: "N", help: "writer mode: N more clients, each reading the latest --history-limit history entries of a writer's board twice a second",
                    apply: int(0...1_000) { $0.historyReaders = $1 }),
        BenchOption(key: "history-limit", value: "L", help: "entries each history read asks for (default 1000)",
                    apply: int(1...1_000) { $0.historyLimit = $1 }),
        BenchOption(key: "board", value: "NAME", help: "board to create/replace and subscribe to (default bench)") { c, v in
            c.board = v
            return nil
        },
        BenchOption(key: "sections", value: "N", help: "sections of the board (default 10)", apply: int(1...1_000_000) { $0.sections = $1 }),
        BenchOption(key: "items", value: "M", help: "items per section (default 0)", apply: int(0...10_000_000) { $0.items = $1 }),
        BenchOption(key: "connections", value: "N", help: "subscribed connections (default 1000)", apply: int(1...1_000_000) { $0.connections = $1 }),
        BenchOption(key: "rate", value: "R", help: "changes per second (default 20)", apply: number(0.1...1_000_000) { $0.rate = $1 }),
        BenchOption(key: "duration", value: "S", help: "measured seconds of sending (default 10)", apply: number(0.1...86_400) { $0.duration = $1 }),
        BenchOption(key: "warmup", value: "S", help: "unmeasured seconds of sending first (default 1)", apply: number(0...3_600) { $0.warmup = $1 }),
        BenchOption(key: "grace", value: "S", help: "longest wait for stragglers after the last send (default 2)", apply: number(0...600) { $0.grace = $1 }),
        BenchOption(key: "hold", value: "S", help: "seconds to hold every connection open and quiet after set-up, before sending (default 0)",
                    apply: number(0...3_600) { $0.hold = $1 }),
        BenchOption(key: "no-batch", value: "", help: "offer only foldsync.v1 (default offers foldsync.v1.batch first)") { c, _ in
            c.batch = false
            return nil
        },
        BenchOption(key: "protocol", value: "foldsync|broadcast",
                    help: "foldsync (default): the daemon's wire; broadcast: a plain broadcaster (Tests/bench/uws_broadcast.py)") { c, v in
            guard let w = Wire(rawValue: v) else { return "expects foldsync or broadcast, got '\(v)'" }
            c.wire = w
            return nil
        },
        BenchOption(key: "rates", value: "R,R,...", help: "the ramp's rates in changes/s (default 50,100,200,500,1000,2000,5000,...)") { c, v in
            let rates = v.split(separator: ",").compactMap { Double($0) }
            guard !rates.isEmpty, rates.count == v.split(separator: ",").count, rates.allSatisfy({ $0 > 0 }) else {
                return "expects positive numbers separated by commas, got '\(v)'"
            }
            c.rampRates = rates
            return nil
        },
        BenchOption(key: "json", value: "", help: "print one JSON summary object on stdout") { c, _ in
            c.json = true
            return nil
        },
        BenchOption(key: "ramp", value: "", help: "find the highest rate with complete delivery and p99 < 100 ms") { c, _ in
            c.ramp = true
            return nil
        },
        BenchOption(key: "step", value: "S", help: "seconds per ramp step (default 3)", apply: number(0.5...600) { $0.step = $1 }),
        BenchOption(key: "pid", value: "PID", help: "the daemon's pid, for CPU and RSS (default: whoever listens on the port)",
                    apply: int(1...Int(Int32.max)) { $0.pid = Int32($1) }),
        BenchOption(key: "server-core", value: "N", help: "the core the server is pinned to: report all of that core's busy time per delivery too",
                    apply: int(0...4095) { $0.serverCore = $1 }),
        BenchOption(key: "connect-concurrency", value: "K", help: "handshakes in flight while connecting (default 200)",
                    apply: int(1...100_000) { $0.connectConcurrency = $1 }),
        BenchOption(key: "idle", value: "N", help: "extra idle connections subscribed to the quiet board bench-idle (default 0)",
                    apply: int(0...1_000_000) { $0.idle = $1 }),
        BenchOption(key: "patch-bytes", value: "B", help: "target size of each patch message (default 100)",
                    apply: int(60...60_000) { $0.patchBytes = $1 }),
        BenchOption(key: "client", value: "epoll|lws", help: "WebSocket client: own epoll loop (default) or libwebsockets (FoldTransport's WebClient)") { c, v in
            guard let k = ClientKind(rawValue: v) else { return "expects epoll or lws, got '\(v)'" }
            c.client = k
            return nil
        },
    ]

    /// `ws://HOST:PORT/PATH`, HOST an IPv4 address (or localhost).
    static func node(_ v: String) -> Result<Node, UsageError> {
        let bad = UsageError(description: "expects ws://HOST:PORT/PATH, got '\(v)'")
        guard v.hasPrefix("ws://") else { return .failure(bad) }
        let rest = v.dropFirst(5)
        let hostPort = rest.prefix { $0 != "/" }
        let path = rest.dropFirst(hostPort.count)
        guard let colon = hostPort.lastIndex(of: ":"), let port = Int(hostPort[hostPort.index(after: colon)...]),
              (1...65535).contains(port) else { return .failure(bad) }
        var host = String(hostPort[..<colon])
        if host == "localhost" { host = "127.0.0.1" }
        guard System.ipv4(host: host, port: port) != nil else { return .failure(UsageError(description: "expects an IPv4 address, got '\(host)'")) }
        return .success(Node(host: host, port: port, path: path.isEmpty ? "/ws" : String(path)))
    }

    static func parse(_ args: [String]) throws -> BenchConfig {
        var c = BenchConfig()
        var i = 0
        while i < args.count {
            let a = args[i]
            guard a.hasPrefix("--") else { throw UsageError(description: "unexpected argument '\(a)'") }
            var key = String(a.dropFirst(2))
            var inline: String?
            if let eq = key.firstIndex(of: "=") {
                inline = String(key[key.index(after: eq)...])
                key = String(key[..<eq])
            }
            guard let o = options.first(where: { $0.key == key }) else { throw UsageError(description: "unknown option --\(key)") }
            var value = ""
            if !o.value.isEmpty {
                if let inline {
                    value = inline
                } else {
                    i += 1
                    guard i < args.count else { throw UsageError(description: "--\(key) expects \(o.value)") }
                    value = args[i]
                }
            }
            if let why = o.apply(&c, value) { throw UsageError(description: "--\(key) \(why)") }
            i += 1
        }
        if c.nodes.count > 1 && c.client == .lws { throw UsageError(description: "--urls needs the epoll client") }
        if c.publisherNode != nil && c.nodes.count < 2 { throw UsageError(description: "--publisher-url goes with --urls") }
        return c
    }

    static var help: String {
        var lines = ["usage: foldsync-bench [options]", "",
                     "Opens N WebSocket connections to a running foldsyncd, subscribes them to one board,",
                     "publishes changes at a rate from one more connection, and reports delivery and latency.", ""]
        for o in options {
            let flag = "--\(o.key)" + (o.value.isEmpty ? "" : " \(o.value)")
            lines.append("  " + flag + String(repeating: " ", count: max(1, 26 - flag.count)) + o.help)
        }
        lines.append("  --help                    this text")
        return lines.joined(separator: "\n")
    }
}
