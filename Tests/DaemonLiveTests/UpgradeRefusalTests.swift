import FoldCore
import FoldTestSupport
import Foundation
import Glibc
import Testing

/// Every refused WebSocket upgrade is an HTTP/1.1 answer with its status and
/// the HTTP API's JSON error body, read here byte by byte: the status line a
/// strict RFC 6455 client parses, then the body, then the hang-up.
@Suite struct UpgradeRefusalTests {
    @Test func aForeignOriginGets403() throws {
        let d = try DaemonProcess()
        defer { d.shutdown() }
        let r = try RawUpgrade.send(port: d.port, headers: [("Host", "127.0.0.1:\(d.port)"), ("Origin", "http://evil.example")])
        try r.expect(status: 403, code: "forbidden")
    }

    @Test func aWrongTokenInTheAuthorizationHeaderGets401AndAGoodOneIsServed() throws {
        let d = try DaemonProcess(Tokens.flags)
        defer { d.shutdown() }
        let r = try RawUpgrade.send(port: d.port, headers: Tokens.bearer("nope"))
        try r.expect(status: 401, code: "forbidden")
        #expect(r.headers["www-authenticate"] == "Bearer", "\(r.headers)")
        // A wrong token as a subprotocol keeps its upgrade (a browser could not read a refusal).
        let p = try d.connect(protocols: ["foldsync.v1", "token.nope"])
        try p.send(Wire.subscribe())
        #expect(try p.recvSkippingPresence().code == "forbidden")
        let good = try d.connect(headers: Tokens.bearer(Tokens.reader))
        #expect(try good.recvJSON()["name"]?.stringValue == "reader")
        let m = try d.http("GET", "/metrics", headers: Tokens.bearer(Tokens.reader)).text
        #expect(m.contains(#"foldsync_upgrades_refused_total{reason="token"} 1"#), "\(m)")
    }

    /// lws (4.1.6 and 4.3.5 alike) reads at most 126 bytes of the
    /// subprotocol offer and drops a longer one without an answer: an offer
    /// of 126 bytes is served, one of 127 gets a 400 that says why.
    @Test func aSubprotocolOfferPastWhatLwsReadsGets400AndOneAtItIsServed() throws {
        let d = try DaemonProcess()
        defer { d.shutdown() }
        func offer(_ bytes: Int) -> [String] {
            let head = "foldsync.v1, x-"
            return [head + String(repeating: "p", count: bytes - head.utf8.count)]
        }
        let served = try TestSocket(port: d.port, protocols: offer(126))
        #expect(served.negotiated == "foldsync.v1")
        #expect(try TestSocket.refusal(port: d.port, protocols: offer(127)) == 400)
        let r = try RawUpgrade.send(port: d.port, headers: [("Host", "127.0.0.1:\(d.port)"), ("Sec-WebSocket-Protocol", offer(127)[0])])
        try r.expect(status: 400, code: "bad_request")
    }

    @Test func aWrongPathGets404() throws {
        let d = try DaemonProcess()
        defer { d.shutdown() }
        try RawUpgrade.send(port: d.port, path: "/elsewhere").expect(status: 404, code: "not_found")
    }

    @Test func aFullDaemonGets503() throws {
        let d = try DaemonProcess(["--max-connections", "1"])
        defer { d.shutdown() }
        let inside = try d.connect()
        try RawUpgrade.send(port: d.port).expect(status: 503, code: "unavailable")
        try inside.subscribe()
    }
}

/// One upgrade request on a fresh TCP connection, and everything the daemon
/// wrote before it hung up.
struct RawUpgrade {
    var statusLine: String
    var headers: [String: String]
    var body: [UInt8]

    static func send(port: Int, path: String = "/ws", headers: [(String, String)] = []) throws -> RawUpgrade {
        let fd = try HTTPClient.connectTCP(port: port)
        defer { close(fd) }
        var head = "GET \(path) HTTP/1.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        head += "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
        if !headers.contains(where: { $0.0 == "Host" }) { head += "Host: 127.0.0.1\r\n" }
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        let request = Array((head + "\r\n").utf8)
        guard request.withUnsafeBytes({ Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == request.count else {
            throw HarnessError("send: errno \(errno)")
        }
        // The daemon hangs up after a refusal: read to EOF, bounded.
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        let deadline = Date().addingTimeInterval(5)
        while true {
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ms = Int32(max(0, deadline.timeIntervalSinceNow * 1000))
            guard poll(&pfd, 1, ms) > 0 else { throw HarnessError("no hang-up after the refusal: \(String(decoding: data, as: UTF8.self))") }
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { break }
            data += buffer[0..<n]
        }
        guard let end = data.firstRange(of: Array("\r\n\r\n".utf8)) else { throw HarnessError("no complete answer: \(data.count) bytes") }
        let lines = String(decoding: data[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        var fields: [String: String] = [:]
        for line in lines.dropFirst() {
            let kv = line.split(separator: ":", maxSplits: 1)
            if kv.count == 2 { fields[kv[0].lowercased()] = kv[1].trimmingCharacters(in: .whitespaces) }
        }
        return RawUpgrade(statusLine: lines.first ?? "", headers: fields, body: Array(data[end.upperBound...]))
    }

    /// `HTTP/1.1 <status> ...`, a JSON body with that `code` whose length the
    /// headers declare, and a `connection: close`.
    func expect(status: Int, code: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(statusLine.hasPrefix("HTTP/1.1 \(status) "), "\(statusLine)", sourceLocation: sourceLocation)
        #expect(headers["content-type"]?.hasPrefix("application/json") == true, "\(headers)", sourceLocation: sourceLocation)
        #expect(headers["content-length"] == String(body.count), "\(headers)", sourceLocation: sourceLocation)
        #expect(headers["connection"] == "close", "\(headers)", sourceLocation: sourceLocation)
        let json = try JSONParser.parse(body, maxDepth: 8)
        #expect(json["code"]?.stringValue == code, "\(String(decoding: body, as: UTF8.self))", sourceLocation: sourceLocation)
        #expect(json["message"]?.stringValue?.isEmpty == false, sourceLocation: sourceLocation)
    }
}
