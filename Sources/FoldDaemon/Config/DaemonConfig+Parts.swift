import FoldConfig
import FoldHub
import FoldTransport

/// The configuration handed out in parts: each owner gets only what it decides with.
extension DaemonConfig {
    /// The part the transport listens with.
    var transport: TransportConfig {
        var t = TransportConfig()
        t.host = host
        t.port = port
        t.eventLoop = EventLoop(rawValue: eventLoop) ?? .libev
        t.maxMessageBytes = maxMessageBytes
        t.maxBodyBytes = maxBodyBytes
        t.pingSeconds = pingSeconds
        t.hangupSeconds = 2 * pingSeconds
        t.coalesceMs = coalesceMs
        t.handshakeTimeout = handshakeTimeout
        t.tlsCert = tlsCert
        t.tlsKey = tlsKey
        t.corsOrigins = web.allowOrigins
        return t
    }

    /// The part the hub decides with; `jwt` is what `JWTKeyFiles` read.
    func hub(jwt: JWTSettings?) -> HubSettings {
        var h = HubSettings()
        h.access = access
        h.jwt = jwt
        h.limits = limits
        h.logLevel = logLevel
        h.storeName = storeName
        h.storeIsShared = storeIsShared
        h.retention = retention
        h.clients = clients
        h.web = web
        h.shutdownTimeout = shutdownTimeout
        h.tls = tls
        h.streamHeartbeat = Double(streamHeartbeat)
        h.boardIdle = Double(boardIdle)
        return h
    }
}
