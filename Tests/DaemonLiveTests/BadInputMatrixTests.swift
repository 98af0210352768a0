import FoldCore
import FoldTestSupport
import Foundation
import Glibc
import Testing

/// Hostile input over real connections. After each case a
/// bystander makes a change and a watcher sees its patch, and the daemon's
/// resident memory stays bounded.
@Suite struct BadInputMatrixTests {
    /// A writer and a watcher that must keep being served.
    final class Bystanders {
        let d: DaemonProcess
        let writer: TestSocket, watcher: TestSocket
        var rev: Int
        var n = 0

        init(_ d: DaemonProcess) throws {
            self.d = d
            writer = try d.connect()
            watcher = try d.connect()
            rev = try #require(try watcher.subscribe().rev)
        }

        /// The writer toggles; the watcher sees every patch in order up to
        /// that one (the case itself may have made changes); memory is bounded.
        func check(_ label: String, rssLimitKB: Int = 300 * 1024) throws {
            n += 1
            let a = try writer.answer(Wire.action(.toggle, id: "by\(n)", #""section":"s1""#), id: "by\(n)")
            #expect(a.type == "ack", "after \(label): \(a)")
            let target = try #require(a.rev, "after \(label): \(a)")
            while rev < target {
                let p = try watcher.waitFor(type: "patch", timeout: 15)
                try #require(p.rev == rev + 1, "after \(label): patch \(p.rev ?? -1) after \(rev)")
                rev += 1
            }
            let kb = try d.residentKB()
            #expect(kb < rssLimitKB, "after \(label): daemon RSS \(kb) kB")
        }
    }

    /// A message that gets an error with `code`, and the connection stays.
    static func expectError(_ c: TestSocket, _ text: String, _ codes: Set<String>, _ label: String) throws {
        try c.send(text)
        let m = try c.recvSkippingPresence(timeout: 15)
        #expect(m.type == "error" && codes.contains(m.code ?? ""), "\(label): \(m)")
        #expect(c.closeCode == nil && !c.eof, "\(label)")
    }

    @Test func oversizedFramesAndInvalidUTF8CloseOnlyTheirConnection() throws {
        let d = try DaemonProcess()
        defer { d.shutdown() }
        let by = try Bystanders(d)

        // 1 MB in one frame: 1009.
        let big = try d.connect()
        try? big.send(Wire.action(.setTitle, id: "big", #""section":"s0","title":"\#(String(repeating: "a", count: 1 << 20))""#))
        #expect(try big.waitForClose(timeout: 15) == 1009)
        try by.check("1 MB frame")

        // 1 MB announced in fragments of 64 KB: 1009 too, before it all arrives.
        let frag = try d.connect()
        try? frag.sendFragmented(String(repeating: "b", count: 1 << 20), pieces: 16)
        #expect(try frag.waitForClose(timeout: 15) == 1009)
        try by.check("1 MB in fragments")

        let prefix = Array(#"{"type":"setTitle","board":"default","id":"u","section":"s0","title":""#.utf8)
        let cases: [(String, [UInt8])] = [
            ("overlong '/' (C0 AF)", prefix + [0xC0, 0xAF] + Array(#""}"#.utf8)),
            ("overlong NUL (C0 80)", prefix + [0xC0, 0x80] + Array(#""}"#.utf8)),
            ("truncated at the end", prefix + Array("x\"}".utf8) + [0xE2, 0x82]),
            ("truncated inside", prefix + [0xE2, 0x82] + Array(#""}"#.utf8)),
            ("encoded surrogate (ED A0 80)", prefix + [0xED, 0xA0, 0x80] + Array(#""}"#.utf8)),
            ("over U+10FFFF (F4 90 80 80)", prefix + [0xF4, 0x90, 0x80, 0x80] + Array(#""}"#.utf8)),
        ]
        for (label, bytes) in cases {
            let c = try d.connect()
            try c.sendText(bytes: bytes)
            #expect(try c.waitForClose(timeout: 10) == 1007, "\(label)")
            try by.check(label)
        }
        // A character split across two fragments is reassembled, not refused.
        let ok = try d.connect()
        let whole = prefix + Array("€\"}".utf8)
        let cut = prefix.count + 1
        try ok.sendRaw(TestSocket.frame(opcode: 0x1, Array(whole[..<cut]), fin: false)
                       + TestSocket.frame(opcode: 0x0, Array(whole[cut...]), fin: true))
        #expect(try ok.waitFor(type: "ack")["id"]?.stringValue == "u")
        try by.check("split character")
        #expect(try d.http("GET", "/api/boards/default").json()["state"]?.section("s0")?["title"]?.stringValue == "€")
    }

    @Test func tenThousandTinyFramesAndTenThousandMessages() throws {
        let d = try DaemonProcess()
        defer { d.shutdown() }
        let by = try Bystanders(d)

        // One message in 10,000 fragments.
        let c = try d.connect()
        let items = (0..<10).map { "\"\($0)\(String(repeating: "z", count: 1500))\"" }.joined(separator: ",")
        let text = Wire.action(.setItems, id: "frag", #""section":"s2","items":[\#(items)]"#)
        #expect(text.utf8.count > 10_000)
        try c.sendFragmented(text, pieces: 10_000)
        #expect(try c.waitFor(type: "ack", timeout: 30)["id"]?.stringValue == "frag")
        try by.check("10,000 fragments")

        // 10,000 small messages at once, under the default rate limit: every
        // one answered (ack, or rate_limited which carries no id: it is refused
        // before it is parsed), the connection stays.
        var burst: [UInt8] = []
        for i in 0..<10_000 { burst += TestSocket.frame(opcode: 0x1, Array(Wire.action(.toggle, id: "m\(i)", #""section":"s0""#).utf8)) }
        try c.sendRaw(burst)
        var answered = 0, acks = 0, limited = 0
        while answered < 10_000 {
            let m = try c.recvSkippingPresence(timeout: 30)
            if m.type == "ack" && m["id"]?.stringValue?.hasPrefix("m") == true {
                acks += 1
            } else if m.code == "rate_limited" {
                limited += 1
            } else {
                continue
            }
            answered += 1
        }
        #expect(acks >= 1 && limited >= 1 && acks + limited == 10_000, "acks \(acks), rate_limited \(limited)")
        #expect(c.closeCode == nil && !c.eof)
        try by.check("10,000 messages")
    }

    @Test func hostileJSON() throws {
        // Large enough to let 100,000 levels of objects through to the parser.
        let d = try DaemonProcess(["--max-message-bytes", "1000000", "--max-actions-per-second", "100000", "--action-burst", "100000"])
        defer { d.shutdown() }
        let by = try Bystanders(d)
        let c = try d.connect()
        let deep = 100_000
        let cases: [(String, String, Set<String>)] = [
            ("arrays nested 100,000 deep", String(repeating: "[", count: deep) + String(repeating: "]", count: deep), ["bad_request"]),
            ("objects nested 100,000 deep in an action",
             #"{"type":"toggle","board":"default","section":"s0","x":"# + String(repeating: #"{"a":"#, count: deep)
                + "1" + String(repeating: "}", count: deep) + "}", ["bad_request"]),
            ("mixed nesting 100,000 deep", String(repeating: #"[{"":"#, count: deep / 2) + "0" + String(repeating: "}]", count: deep / 2),
             ["bad_request"]),
            ("unclosed nesting 100,000 deep", String(repeating: "[", count: deep), ["bad_request"]),
            ("lone high surrogate", #"{"type":"setTitle","board":"default","section":"s0","title":"a\ud800b"}"#, ["bad_request"]),
            ("lone low surrogate", #"{"type":"setTitle","board":"default","section":"s0","title":"\udc00"}"#, ["bad_request"]),
            ("reversed pair", #"{"type":"setTitle","board":"default","section":"s0","title":"\udc00\ud800"}"#, ["bad_request"]),
            ("high surrogate then a letter", #"{"type":"setTitle","board":"default","section":"s0","title":"\ud83dx"}"#, ["bad_request"]),
            ("1e400 for a position", #"{"type":"moveSection","board":"default","section":"s0","to":1e400}"#, ["bad_request"]),
            ("-1e400 for a position", #"{"type":"moveSection","board":"default","section":"s0","to":-1e400}"#, ["bad_request"]),
            ("1e400 for ifRev", #"{"type":"toggle","board":"default","section":"s0","ifRev":1e400}"#, ["bad_request"]),
            ("1e400 for at", #"{"type":"addSection","board":"default","section":{"title":"t"},"at":1e400}"#, ["bad_request"]),
            ("duplicate keys", #"{"type":"toggle","board":"default","section":"s0","section":"s1"}"#, ["bad_request"]),
            ("duplicate type", #"{"type":"toggle","type":"setMode","board":"default","section":"s0"}"#, ["bad_request"]),
            ("duplicate keys nested", #"{"type":"addSection","board":"default","section":{"title":"a","title":"b"}}"#, ["bad_request"]),
            ("raw NUL inside a string", "{\"type\":\"setTitle\",\"board\":\"default\",\"section\":\"s0\",\"title\":\"a\u{0}b\"}", ["bad_request"]),
            ("raw NUL between tokens", "{\"type\":\"toggle\",\u{0}\"board\":\"default\",\"section\":\"s0\"}", ["bad_request"]),
        ]
        for (label, text, codes) in cases {
            try Self.expectError(c, text, codes, label)
            try by.check(label)
        }
        // An escaped NUL is data: accepted, or refused as bad_request; never a crash or a close.
        try c.send(#"{"type":"setTitle","board":"default","id":"nul","section":"s2","title":"a\u0000b"}"#)
        let m = try c.recvSkippingPresence()
        #expect(m.type == "ack" || m.code == "bad_request" || m.code == "invalid", "\(m)")
        if m.type == "ack" {
            let title = try d.http("GET", "/api/boards/default").json()["state"]?.section("s2")?["title"]?.stringValue
            #expect(title == "a\u{0}b", "the NUL was stored as sent: \(title.map { Array($0.utf8) } ?? [])")
        }
        try by.check("escaped NUL")
        // Nothing refused was applied: only the bystander's toggles (and maybe the NUL title) changed the board.
        let rev = try #require(try d.http("GET", "/api/boards/default").json().rev)
        #expect(rev == by.n + (m.type == "ack" ? 1 : 0))
    }

    @Test func aClientThatNeverReadsWhileFiveThousandChangesGoOut() throws {
        let d = try DaemonProcess(["--max-actions-per-second", "100000", "--action-burst", "100000", "--slow-client-timeout", "3"])
        defer { d.shutdown() }
        let slow = try d.connect(receiveBuffer: 4096)
        try slow.send(Wire.subscribe())
        let by = try Bystanders(d)
        let items = (0..<3).map { "\"\($0)\(String(repeating: "w", count: 1000))\"" }.joined(separator: ",")
        var rev = by.rev
        for start in stride(from: 0, to: 5_000, by: 100) {
            for n in start..<(start + 100) {
                try by.writer.send(Wire.action(.setItems, id: "c\(n)", #""section":"s\#(n % 3)","items":["\#(n)",\#(items)]"#))
            }
            for _ in 0..<100 { try #require(try by.writer.recvSkippingPresence(timeout: 30).type == "ack") }
            for _ in 0..<100 {
                let p = try by.watcher.recvSkippingPresence(timeout: 30)
                try #require(p.type == "patch" && p.rev == rev + 1, "\(p.type ?? "?") \(p.rev ?? -1) after \(rev)")
                rev += 1
            }
            if start % 1000 == 0 { let kb = try d.residentKB(); #expect(kb < 300 * 1024, "daemon RSS \(kb) kB") }
        }
        by.rev = rev
        var m = ""
        let handled = try eventually(timeout: 20) {
            m = try d.http("GET", "/metrics").text
            return (metric("foldsync_resyncs_total", in: m) ?? 0) >= 1 && (metric("foldsync_slow_client_closes_total", in: m) ?? 0) >= 1
        }
        #expect(handled, "the laggard was resynchronised and closed\n\(m)")
        try by.check("5,000 changes past a client that never reads")
    }

    @Test func fiveHundredAbandonedConnections() throws {
        let d = try DaemonProcess()
        defer { d.shutdown() }
        let by = try Bystanders(d)
        func connections() throws -> Int { try #require(try d.http("GET", "/healthz").json()["connections"]?.intValue) }
        #expect(try connections() == 2)

        // 300 WebSocket connections left without a close frame, 200 raw TCP
        // connections with half a request.
        var sockets = try (0..<300).map { _ in try TestSocket(port: d.port) }
        var raw: [Int32] = []
        for _ in 0..<200 {
            let fd = try HTTPClient.connectTCP(port: d.port)
            _ = "GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\n".withCString { send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
            raw.append(fd)
        }
        #expect(try eventually { try connections() == 302 })
        try by.check("500 connections open")

        sockets.removeAll()  // closes each descriptor: no close frame
        for fd in raw { close(fd) }
        raw.removeAll()
        var last = -1
        #expect(try eventually(timeout: 20) { last = try connections(); return last == 2 }, "connections still counted: \(last)")
        try by.check("500 connections abandoned")
        #expect(try d.connect().subscribe().type == "snapshot")
    }

    /// A raw HTTP request: the status of the answer, or nil when the daemon closed without one.
    static func rawRequest(port: Int, _ bytes: [UInt8]) throws -> Int? {
        let fd = try HTTPClient.connectTCP(port: port)
        defer { close(fd) }
        var tv = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var off = 0
        while off < bytes.count {
            let n = bytes[off...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }  // the daemon stopped reading or closed: see what it said
            off += n
        }
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline && data.firstRange(of: Array("\r\n".utf8)) == nil {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, Int32(max(1, deadline.timeIntervalSinceNow * 1000))) > 0 else { break }
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { break }
            data += buffer[0..<n]
        }
        guard !data.isEmpty else { return nil }
        guard let line = String(decoding: data, as: UTF8.self).split(separator: "\r\n").first,
              let status = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) else {
            throw HarnessError("not an HTTP answer: \(String(decoding: data.prefix(80), as: UTF8.self))")
        }
        return status
    }

    @Test func absurdHeaders() throws {
        let d = try DaemonProcess()
        defer { d.shutdown() }
        let by = try Bystanders(d)
        let big = String(repeating: "a", count: 100 * 1024)
        let many = (0..<5000).map { "X-H\($0): v\r\n" }.joined()
        let requests: [(String, String)] = [
            ("100 KB header line", "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: \(big)\r\n\r\n"),
            ("100 KB URL", "GET /\(big) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"),
            ("100 KB header on an upgrade", "GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nX-Big: \(big)\r\n\r\n"),
            ("5,000 headers", "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\(many)\r\n"),
            ("100 KB Authorization", "GET /api/boards HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(big)\r\n\r\n"),
            ("header without colon", "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\(big)\r\n\r\n"),
            ("binary garbage", String(decoding: (0..<4096).map { _ in UInt8.random(in: 0...255) }, as: UTF8.self) + "\r\n\r\n"),
        ]
        for (label, text) in requests {
            let status = try Self.rawRequest(port: d.port, Array(text.utf8))
            if let status { #expect((400...499).contains(status), "\(label): \(status)") }
            try by.check(label)
            #expect(try d.http("GET", "/healthz").status == 200, "\(label)")
        }
    }

    @Test func pathTraversalOnTheStaticFiles() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("foldsync-trav-\(UUID().uuidString)")
        let web = base.appendingPathComponent("web")
        try FileManager.default.createDirectory(at: web.appendingPathComponent("sub"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: base) }
        try "<p>index</p>".write(to: web.appendingPathComponent("index.html"), atomically: true, encoding: .utf8)
        try "body{}".write(to: web.appendingPathComponent("sub/app.css"), atomically: true, encoding: .utf8)
        try "SECRET-OUTSIDE".write(to: base.appendingPathComponent("secret.txt"), atomically: true, encoding: .utf8)
        try "SECRET-DOT".write(to: web.appendingPathComponent(".hidden.txt"), atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: web.appendingPathComponent("link.txt").path,
                                                   withDestinationPath: base.appendingPathComponent("secret.txt").path)
        try FileManager.default.createSymbolicLink(atPath: web.appendingPathComponent("passwd.txt").path, withDestinationPath: "/etc/passwd")
        try FileManager.default.createSymbolicLink(atPath: web.appendingPathComponent("up").path, withDestinationPath: base.path)

        let d = try DaemonProcess(["--web-root", web.path])
        defer { d.shutdown() }
        #expect(try d.http("GET", "/index.html").text.contains("index"))
        #expect(try d.http("GET", "/sub/app.css").status == 200)

        let paths = [
            "/../etc/passwd", "/../../../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/..%2fPackage.swift",
            "/%2e%2e%2f%2e%2e%2fetc%2fpasswd", "/.%2e/.%2e/etc/passwd", "/sub/../../secret.txt", "/sub/%2e%2e/%2e%2e/secret.txt",
            "/%252e%252e/secret.txt", "/..\\secret.txt", "/link.txt", "/passwd.txt", "/up/secret.txt", "/.hidden.txt",
            "/sub/..%2f..%2fsecret.txt", "//etc/passwd", "/b/../../secret.txt", "/sub/./../../secret.txt",
        ]
        for path in paths {
            let r = try d.http("GET", path)
            #expect(r.status == 404 || r.status == 403, "\(path): \(r.status)")
            #expect(!r.text.contains("SECRET") && !r.text.contains("root:"), "\(path) leaked: \(r.text.prefix(80))")
        }
        // An encoded NUL: lws drops the request without an answer; either way nothing leaks.
        let nul = try Self.rawRequest(port: d.port, Array("GET /index.html%00.txt HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8))
        #expect(nul == nil || nul == 404 || nul == 403 || nul == 400, "\(nul.map(String.init) ?? "closed")")
        #expect(try d.http("GET", "/healthz").status == 200)
    }
}
