import FoldCore
import FoldTestSupport
import Foundation
import Testing

/// Browser origins at the upgrade, and the per-daemon and per-connection limits.
@Suite struct OriginAndLimitTests {
    @Test func foreignOriginsAreRefusedOwnAndListedOnesAndNoneAreAllowed() throws {
        let d = try DaemonProcess(["--allow-origin", "https://dash.example:8443", "--allow-origin", "http://a.example,http://b.example"])
        defer { d.shutdown() }
        let own = "127.0.0.1:\(d.port)"
        #expect(try TestSocket.refusal(port: d.port, host: own, headers: [("Origin", "http://evil.example")]) == 403)
        #expect(try TestSocket.refusal(port: d.port, host: own, headers: [("Origin", "https://\(own)")]) == 403,
                "https is not the origin of a plain-http daemon")
        #expect(try TestSocket.refusal(port: d.port, host: own, headers: [("Origin", "http://127.0.0.1:1")]) == 403)
        #expect(try TestSocket.refusal(port: d.port, host: own, headers: [("Origin", "null")]) == 403)

        for origin in ["http://\(own)", "https://dash.example:8443", "http://a.example", "http://b.example"] {
            let c = try d.connect(host: own, headers: [("Origin", origin)])
            try c.subscribe()
        }
        let none = try d.connect(host: own)
        try none.subscribe()
        let m = try d.http("GET", "/metrics").text
        #expect(m.contains(#"foldsync_upgrades_refused_total{reason="origin"} 4"#), "\(m)")
    }

    @Test func maxConnectionsRefusesTheNextUpgradeWith503() throws {
        let d = try DaemonProcess(["--max-connections", "3"])
        defer { d.shutdown() }
        var open = try (0..<3).map { _ in try d.connect() }
        #expect(try TestSocket.refusal(port: d.port) == 503)
        let m = try d.http("GET", "/metrics").text
        #expect(m.contains(#"foldsync_upgrades_refused_total{reason="max-connections"} 1"#), "\(m)")
        // Those inside are served; HTTP is not a WebSocket connection and still answers.
        try open[0].subscribe()
        #expect(try open[0].answer(Wire.action(.toggle, id: "t", #""section":"s0""#), id: "t").type == "ack")
        // One leaves: there is room again.
        try open[2].sendClose()
        #expect(try open[2].waitForClose() == 1000)
        open.removeLast()
        #expect(eventually { (try? d.connect()) != nil })
    }

    /// Loopback peers are not counted by default (every local client shares
    /// the address); counting them lets the per-address limit be seen from here.
    @Test func maxConnectionsPerIPRefusesTheNextUpgradeFromThatAddress() throws {
        let uncounted = try DaemonProcess(["--max-connections-per-ip", "2"])
        defer { uncounted.shutdown() }
        let local = try (0..<3).map { _ in try uncounted.connect() }
        #expect(local.count == 3, "loopback is not counted by default")

        let d = try DaemonProcess(["--max-connections-per-ip", "2", "--per-ip-counts-loopback", "true"])
        defer { d.shutdown() }
        var open = try (0..<2).map { _ in try d.connect() }
        #expect(try TestSocket.refusal(port: d.port) == 503)
        let m = try d.http("GET", "/metrics").text
        #expect(m.contains(#"foldsync_upgrades_refused_total{reason="max-connections-per-ip"} 1"#), "\(m)")
        try open[1].sendClose()
        #expect(try open[1].waitForClose() == 1000)
        open.removeLast()
        #expect(eventually { (try? d.connect()) != nil }, "a slot frees when a connection from that address closes")
    }

    @Test func aFloodIsRateLimitedAndTheConnectionStays() throws {
        let d = try DaemonProcess(["--max-actions-per-second", "5", "--action-burst", "5"])
        defer { d.shutdown() }
        let c = try d.connect()
        var burst: [UInt8] = []
        for i in 0..<20 { burst += TestSocket.frame(opcode: 0x1, Array(Wire.action(.toggle, id: "r\(i)", #""section":"s0""#).utf8)) }
        try c.sendRaw(burst)
        // A refusal by the rate limiter comes before the message is parsed: it carries no id.
        var acks = 0, limited = 0, other: [JSON] = []
        while acks + limited + other.count < 20 {
            let m = try c.recvSkippingPresence(timeout: 10)
            if m.type == "ack" { acks += 1 } else if m.code == "rate_limited" { limited += 1 } else { other.append(m) }
        }
        #expect(limited >= 1 && acks >= 1 && acks + limited == 20, "acks \(acks), rate_limited \(limited), other \(other)")
        #expect(c.closeCode == nil && !c.eof)
        // After a pause the bucket has refilled and the same connection is served.
        usleep(1_500_000)
        #expect(try c.answer(Wire.action(.toggle, id: "after", #""section":"s1""#), id: "after").type == "ack")
        let m = try d.http("GET", "/metrics").text
        #expect(m.contains(#"foldsync_actions_refused_total{code="rate_limited"}"#), "\(m)")
        #expect((metric(#"foldsync_limit_hits_total{limit="max-actions-per-second"}"#, in: m) ?? 0) == Double(limited), "\(m)")
    }

    @Test func maxSubscriptionsRefusesTheNextBoardAsInvalid() throws {
        let d = try DaemonProcess(["--max-subscriptions", "2"])
        defer { d.shutdown() }
        let board = #"{"mode":"multi","sections":[]}"#
        for name in ["b1", "b2"] { #expect(try d.http("PUT", "/api/boards/\(name)", body: board).status < 300) }
        let c = try d.connect()
        try c.subscribe("default")
        try c.subscribe("b1")
        try c.send(Wire.subscribe("b2"))
        let e = try c.recvSkippingPresence()
        #expect(e.type == "error" && e.code == "invalid", "\(e)")
        let m = try d.http("GET", "/metrics").text
        #expect(metric(#"foldsync_limit_hits_total{limit="max-subscriptions"}"#, in: m) == 1, "\(m)")
        // Subscribing again to one already held is not a new subscription; leaving one frees a place.
        try c.subscribe("b1")
        try c.send(#"{"type":"unsubscribe","board":"b1"}"#)
        try c.subscribe("b2")
        #expect(c.closeCode == nil && !c.eof)
    }
}
