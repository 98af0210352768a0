import FoldTestSupport
import Foundation
import Glibc
import Testing

/// Peers that hold a connection without using it: a half-sent request
/// (slowloris) is dropped on time, and the other clients are served
/// meanwhile. (A WebSocket peer that never answers pings: CloseReasonTests.)
@Suite struct TransportTimeoutTests {
    /// A raw TCP connection to the daemon that sends `bytes` and then waits
    /// (bounded) for the daemon to hang up. Returns the seconds it took, or
    /// nil if the connection was still open at `timeout`.
    static func secondsUntilHangUp(port: Int, sending bytes: [UInt8], timeout: Double) throws -> Double? {
        let fd = try HTTPClient.connectTCP(port: port)
        defer { close(fd) }
        if !bytes.isEmpty { _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) } }
        let start = Date()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while Date().timeIntervalSince(start) < timeout {
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&pfd, 1, 100) > 0 else { continue }
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { return Date().timeIntervalSince(start) }
        }
        return nil
    }

    @Test(arguments: [
        "GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n",  // every line but the last blank one
        "GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgr",                    // stopped mid-header
        "",                                                                // nothing at all
    ])
    func aHalfSentRequestIsDroppedAfterTheHandshakeTimeout(request: String) throws {
        let d = try DaemonProcess(["--handshake-timeout", "2"])
        defer { d.shutdown() }
        let took = try Self.secondsUntilHangUp(port: d.port, sending: Array(request.utf8), timeout: 15)
        let seconds = try #require(took, "the half-sent request was still connected after 15 s")
        #expect(seconds >= 1.5, "dropped before its time: \(seconds) s")
        // Others are served meanwhile, and the drop shows in the metrics.
        let c = try d.connect()
        #expect(try c.subscribe()["type"]?.stringValue == "snapshot")
        let metrics = try d.http("GET", "/metrics").text
        #expect((metric(#"foldsync_transport_closes_total{reason="incomplete-handshake"}"#, in: metrics) ?? 0) >= 1, "\(metrics)")
    }
}
