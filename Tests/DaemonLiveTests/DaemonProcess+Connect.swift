import Foundation
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

    /// A daemon started once (for its directory and port), stopped, its store
    /// removed: the test writes the store it wants, then `restart()`s it.
    static func stoppedWithoutStore(_ flags: [String] = []) throws -> DaemonProcess {
        let d = try DaemonProcess(flags)
        guard d.stop() == 0 else { throw HarnessError("the daemon did not stop cleanly: \(d.stderr)") }
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: d.dbPath + suffix) }
        return d
    }
}
