import FoldHub
import FoldTransport

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
        return t
    }
}
