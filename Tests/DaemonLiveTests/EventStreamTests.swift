import FoldCore
import FoldTestSupport
import Foundation
import Glibc
import Testing

/// The event stream, `GET /api/boards/NAME/events`, through a raw HTTP
/// client and `curl -N`: the snapshot first, every change as a patch with
/// its id, presence, the heartbeat, resume by Last-Event-ID and ?since=, a
/// snapshot after a gap, limits and presence, a slow reader, tokens and
/// expiry, and the CORS a page of another origin needs (with /lib/).
@Suite struct EventStreamTests {
    static func eventsPath(_ board: String = "default") -> String { "/api/boards/\(board)/events" }

    @Test func theStreamCarriesTheBoardAndResumesWhereItStopped() throws {
        let d = try DaemonProcess(["--history-per-board", "3", "--stream-heartbeat", "1"])
        defer { d.shutdown() }
        let c = try EventStreamClient(port: d.port, path: Self.eventsPath())
        #expect(c.status == 200 && c.headers["content-type"] == "text/event-stream", "\(c.status) \(c.headers)")
        #expect(c.headers["content-length"] == nil)
        let first = try #require(try c.next())
        let get = try d.http("GET", "/api/boards/default").json()
        let epoch = try #require(get["epoch"]?.stringValue)
        #expect(first.type == "snapshot" && first.id == "\(epoch):0", "\(first)")
        var state = try #require(first.json?["state"])
        #expect(state == get["state"])

        let writer = try d.connect()
        #expect(try writer.answer(Wire.action(.toggle, id: "a", #""section":"s1""#), id: "a").type == "ack")
        let patch = try c.next("patch")
        #expect(patch.id == "\(epoch):1" && patch.json?.rev == 1, "\(patch)")
        state = try JSONPatch.apply(try #require(patch.json?["ops"]), to: state)
        // The heartbeat comment, once a second here (15 s by default).
        #expect(try eventually(timeout: 4) { _ = try c.next(timeout: 0.3); return c.comments.contains("heartbeat") }, "\(c.comments)")

        // Two more changes while nobody else listens; then resume after rev 1.
        for (n, s) in ["s2", "s0"].enumerated() {
            #expect(try writer.answer(Wire.action(.toggle, id: "b\(n)", #""section":"\#(s)""#), id: "b\(n)").type == "ack")
        }
        for how in [("Last-Event-ID", Self.eventsPath(), [("Last-Event-ID", "\(epoch):1")]),
                    ("?since=", Self.eventsPath() + "?since=\(epoch)%3A1", [])] {
            let r = try EventStreamClient(port: d.port, path: how.1, headers: how.2)
            let a = try #require(try r.next()), b = try #require(try r.next("patch"))
            #expect(a.type == "patch" && a.id == "\(epoch):2" && b.id == "\(epoch):3", "\(how.0): \(a) \(b)")
            var resumed = state
            for e in [a, b] { resumed = try JSONPatch.apply(try #require(e.json?["ops"]), to: resumed) }
            let now = try d.http("GET", "/api/boards/default").json()["state"]
            #expect(resumed == now, "\(how.0): the resumed mirror differs from GET")
        }
        // A gap the kept history cannot fill, or another epoch: a snapshot.
        #expect(try writer.answer(Wire.action(.toggle, id: "c", #""section":"s1""#), id: "c").type == "ack")
        for from in ["\(epoch):0", "0000000000000000:3"] {
            let r = try EventStreamClient(port: d.port, path: Self.eventsPath(), headers: [("Last-Event-ID", from)])
            let e = try #require(try r.next())
            #expect(e.type == "snapshot" && e.id == "\(epoch):4", "from \(from): \(e)")
            let now = try d.http("GET", "/api/boards/default").json()["state"]
            #expect(e.json?["state"] == now)
        }
        // A missing board: 404 with the API's error body.
        let none = try EventStreamClient(port: d.port, path: Self.eventsPath("nope"))
        let noneBody = try none.body()
        #expect(none.status == 404 && noneBody.contains("not_found"))
    }

    @Test func curlShowsALiveBoard() throws {
        let d = try DaemonProcess()
        defer { d.shutdown() }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        p.arguments = ["-sN", "--max-time", "20", "http://127.0.0.1:\(d.port)\(Self.eventsPath())"]
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        defer { p.terminate() }
        let text = CurlOutput()
        let reader = Thread {
            while true {
                let data = out.fileHandleForReading.availableData
                if data.isEmpty { return }
                text.append(String(decoding: data, as: UTF8.self))
            }
        }
        reader.start()
        #expect(eventually(timeout: 5) { text.value.contains("event: snapshot") })
        #expect(try d.http("POST", "/api/boards/default/actions", body: #"{"type":"toggle","section":"s2"}"#).status == 200)
        #expect(eventually(timeout: 5) { text.value.contains("event: patch\nid: ") && text.value.contains(#""rev":1"#) }, "\(text.value)")
    }

    @Test func streamsCountAsConnectionsAndViewers() throws {
        let d = try DaemonProcess(["--max-connections", "2", "--stream-heartbeat", "1"])
        defer { d.shutdown() }
        let ws = try d.connect()
        try ws.subscribe()
        var stream: EventStreamClient? = try EventStreamClient(port: d.port, path: Self.eventsPath())
        #expect(try stream?.next()?.type == "snapshot")
        #expect(try eventually { try ws.drain(quiet: 0.2).contains { $0.type == "presence" && $0["viewers"]?.intValue == 2 } })
        let metrics = try d.http("GET", "/metrics").text
        #expect(metric("foldsync_event_streams", in: metrics) == 1 && metric("foldsync_connections", in: metrics) == 2, "\(metrics)")
        // The third connection, a stream, is one too many.
        let third = try EventStreamClient(port: d.port, path: Self.eventsPath())
        let thirdBody = try third.body()
        #expect(third.status == 503 && thirdBody.contains("unavailable"), "\(third.status)")
        // A reader that goes is noticed at the next heartbeat at the latest.
        stream = nil
        #expect(try eventually(timeout: 5) { try ws.drain(quiet: 0.2).contains { $0.type == "presence" && $0["viewers"]?.intValue == 1 } })
        #expect(try eventually(timeout: 3) { metric("foldsync_event_streams", in: try d.http("GET", "/metrics").text) == 0 })
    }

    @Test func aSlowReaderIsResynchronisedThenEnded() throws {
        let d = try DaemonProcess(["--max-queue-frames", "16", "--slow-client-timeout", "2", "--stream-heartbeat", "1"])
        defer { d.shutdown() }
        // Reads its headers and first event, then never again, with a tiny window.
        let slow = try EventStreamClient(port: d.port, path: Self.eventsPath(), receiveBuffer: 4096)
        #expect(try slow.next()?.type == "snapshot")
        let writer = try d.connect()
        let items = (0..<20).map { "\"\($0)\(String(repeating: "x", count: 3000))\"" }.joined(separator: ",")
        for start in stride(from: 0, to: 160, by: 8) {
            for n in start..<(start + 8) {
                try writer.send(Wire.action(.setItems, id: "w\(n)", #""section":"s\#(n % 3)","items":["\#(n)",\#(items)]"#))
            }
            for _ in 0..<8 { try #require(try writer.recvSkippingPresence(timeout: 10).type == "ack") }
        }
        var metrics = ""
        #expect(try eventually(timeout: 15) {
            metrics = try d.http("GET", "/metrics").text
            return (metric("foldsync_resyncs_total", in: metrics) ?? 0) >= 1
                && metric(#"foldsync_event_streams_ended_total{reason="slow-client"}"#, in: metrics) == 1
                && metric("foldsync_event_streams", in: metrics) == 0
        }, "\(metrics)")
        #expect(try d.residentKB() < 200 * 1024)
    }

    @Test func tokensAreCheckedAndAJWTStreamEndsAtExpiry() throws {
        let secret = try JWTMint.key("hs256.secret")
        let d = try DaemonProcess(Tokens.flags + ["--jwt-key", "HS256:\(secret)", "--jwt-leeway", "0"])
        defer { d.shutdown() }
        let anonymous = try EventStreamClient(port: d.port, path: Self.eventsPath())
        #expect(anonymous.status == 401)
        let reader = try EventStreamClient(port: d.port, path: Self.eventsPath(), headers: Tokens.bearer(Tokens.reader))
        let readerFirst = try reader.next()
        #expect(reader.status == 200 && readerFirst?.type == "snapshot")
        let ops = try EventStreamClient(port: d.port, path: Self.eventsPath(), headers: Tokens.bearer(Tokens.ops))
        #expect(ops.status == 403, "a token for ops-* only")
        let token = try JWTMint.sign(.init(alg: "HS256", key: secret, claims: JWTMint.claims("stream", life: 2.5, grants: #"{"default":["read"]}"#)))
        let j = try EventStreamClient(port: d.port, path: Self.eventsPath(), headers: [("Authorization", "Bearer \(token)")])
        let jFirst = try j.next()
        #expect(j.status == 200 && jFirst?.type == "snapshot")
        #expect(try j.waitForEnd(timeout: 6), "the stream outlived its token")
        let metrics = try d.http("GET", "/metrics", headers: Tokens.bearer(Tokens.admin)).text
        #expect(metric(#"foldsync_event_streams_ended_total{reason="token-expired"}"#, in: metrics) == 1, "\(metrics)")
    }

    @Test func pagesOfAllowedOriginsMayImportTheLibraryAndCallTheAPI() throws {
        let d = try DaemonProcess(["--allow-origin", "http://app.example:8080"])
        defer { d.shutdown() }
        let allowed = [("Origin", "http://app.example:8080")]
        let lib = try d.http("GET", "/lib/foldsync.js", headers: allowed)
        #expect(lib.status == 200 && lib.headers["content-type"]?.hasPrefix("text/javascript") == true, "\(lib.status) \(lib.headers)")
        #expect(lib.headers["access-control-allow-origin"] == "http://app.example:8080")
        #expect(lib.text.contains("export"))
        let types = try d.http("GET", "/lib/foldsync.d.ts", headers: allowed)
        #expect(types.status == 200 && types.headers["content-type"]?.hasPrefix("application/typescript") == true)
        // Another origin gets the file but no permission to read it from its page.
        let other = try d.http("GET", "/lib/foldsync.js", headers: [("Origin", "http://evil.example")])
        #expect(other.status == 200 && other.headers["access-control-allow-origin"] == nil)
        // Nothing outside the library's folder.
        #expect(try d.http("GET", "/lib/../web/index.html").status == 404)
        #expect(try d.http("GET", "/lib/.hidden.js").status == 404)
        // The API: a preflight, then the answer, both readable by the page.
        let pre = try d.http("OPTIONS", "/api/boards/default/actions", headers: allowed + [("Access-Control-Request-Method", "POST")])
        #expect(pre.status == 204 && pre.headers["access-control-allow-origin"] == "http://app.example:8080")
        #expect(pre.headers["access-control-allow-headers"]?.contains("authorization") == true, "\(pre.headers)")
        let post = try d.http("POST", "/api/boards/default/actions", body: #"{"type":"toggle","section":"s0"}"#, headers: allowed)
        #expect(post.status == 200 && post.headers["access-control-allow-origin"] == "http://app.example:8080")
        let stream = try EventStreamClient(port: d.port, path: Self.eventsPath(), headers: allowed)
        #expect(stream.headers["access-control-allow-origin"] == "http://app.example:8080")
    }
}

/// What curl printed so far, from its reader thread.
private final class CurlOutput: @unchecked Sendable {
    private let lock = NSLock()
    private var text = ""
    func append(_ s: String) { lock.lock(); text += s; lock.unlock() }
    var value: String { lock.lock(); defer { lock.unlock() }; return text }
}
