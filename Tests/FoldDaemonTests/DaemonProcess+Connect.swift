import FoldTestSupport

/// Talking to the shared launcher's daemon with this target's own clients.
extension DaemonProcess {
    /// A new WebSocket client of this daemon, past its `hello` unless `keepHello`.
    func connect(protocols: [String] = [], receiveBuffer: Int? = nil, keepHello: Bool = false,
                 path: String = "/ws", host: String? = nil, headers: [(String, String)] = []) throws -> TestSocket {
        let s = try TestSocket(port: port, protocols: protocols, receiveBuffer: receiveBuffer,
                               path: path, host: host, headers: headers)
        if !keepHello {
            let hello = try s.recvJSON()
            guard hello["type"]?.stringValue == "hello" else { throw HarnessError("first message was not hello: \(hello)") }
        }
        return s
    }

    /// An HTTP request to this daemon.
    func http(_ method: String, _ path: String, body: String? = nil, headers: [(String, String)] = []) throws -> HTTPReply {
        try HTTPClient.request(port: port, method: method, path: path, body: body, headers: headers)
    }
}
