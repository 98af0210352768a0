/// Where a client connects: parsed from `ws://`, `wss://`, `http://` or
/// `https://` URLs. Pure value; no lookups happen here.
public struct Endpoint: Sendable, Equatable, CustomStringConvertible {
    /// TLS (`wss`, `https`).
    public var secure: Bool
    public var host: String
    public var port: Int
    /// Path with its query, always starting with `/`.
    public var path: String

    public init(secure: Bool, host: String, port: Int, path: String) {
        self.secure = secure
        self.host = host
        self.port = port
        self.path = path
    }

    /// Nil when the scheme is not one of the four, the host is empty, or the port is not 1-65535.
    public init?(url: String) {
        let parts = url.split(separator: "://", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        switch parts[0].lowercased() {
        case "ws", "http": secure = false
        case "wss", "https": secure = true
        default: return nil
        }
        var rest = parts[1]
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        path = slash == rest.endIndex ? "/" : String(rest[slash...])
        rest = rest[..<slash]
        var host = String(rest)
        var port = secure ? 443 : 80
        if host.hasPrefix("[") {
            // [v6]:port
            guard let close = host.firstIndex(of: "]") else { return nil }
            let after = host[host.index(after: close)...]
            if after.hasPrefix(":") {
                guard let p = Int(after.dropFirst()) else { return nil }
                port = p
            } else if !after.isEmpty {
                return nil
            }
            host = String(host[host.index(after: host.startIndex)..<close])
        } else if let colon = host.lastIndex(of: ":") {
            guard let p = Int(host[host.index(after: colon)...]) else { return nil }
            port = p
            host = String(host[..<colon])
        }
        guard !host.isEmpty, (1...65535).contains(port) else { return nil }
        self.host = host
        self.port = port
    }

    /// The same server with another path (the HTTP API beside `/ws`).
    public func with(path: String) -> Endpoint {
        Endpoint(secure: secure, host: host, port: port, path: path)
    }

    /// `Host` header value.
    public var authority: String {
        let h = host.contains(":") ? "[\(host)]" : host
        return port == (secure ? 443 : 80) ? h : "\(h):\(port)"
    }

    public var description: String { "\(secure ? "wss" : "ws")://\(authority)\(path)" }
}
