import FoldCore
import FoldTestSupport
import Foundation
import Testing

/// Guarantee 2: a client that does not read is resynchronised, then closed;
/// everyone else keeps every patch in order; the daemon's memory stays bounded.
@Suite struct SlowClientTests {
    /// On both event loops: the hub's stall timer runs on its own clock, not on lws' timers (since 8555708).
    @Test(arguments: ["poll", "libev"])
    func aClientThatNeverReadsIsResyncedThenClosedWhileOthersKeepUp(eventLoop: String) throws {
        let d = try DaemonProcess(["--max-queue-frames", "16", "--slow-client-timeout", "2", "--event-loop", eventLoop])
        defer { d.shutdown() }
        // The laggard: tiny receive window, subscribes, never reads again.
        let slow = try d.connect(receiveBuffer: 4096)
        try slow.send(Wire.subscribe())
        let reader = try d.connect(), writer = try d.connect()
        let snap = try reader.subscribe()
        var state = try #require(snap["state"])
        var rev = try #require(snap.rev)

        // 160 changes of ~60 KB each (more than the kernel's socket buffers hold),
        // pipelined 8 at a time: a reading client never has more than 8 patches
        // from one group commit queued at once.
        let items = (0..<20).map { "\"\($0)\(String(repeating: "x", count: 3000))\"" }.joined(separator: ",")
        let total = 160, window = 8
        for start in stride(from: 0, to: total, by: window) {
            for n in start..<(start + window) {
                try writer.send(Wire.action(.setItems, id: "w\(n)", #""section":"s\#(n % 3)","items":["\#(n)",\#(items)]"#))
            }
            for _ in 0..<window {
                let m = try writer.recvSkippingPresence(timeout: 10)
                try #require(m.type == "ack", "\(m)")
            }
            // The reader gets every patch, in order.
            for _ in 0..<window {
                let p = try reader.recvSkippingPresence(timeout: 10)
                try #require(p.type == "patch", "\(p)")
                try #require(p.rev == rev + 1, "patch out of order: \(p.rev ?? -1) after \(rev)")
                state = try JSONPatch.apply(try #require(p["ops"]), to: state)
                rev += 1
            }
            if start % 40 == 0 { let kb = try d.residentKB(); #expect(kb < 200 * 1024, "daemon RSS \(kb) kB") }
        }
        #expect(try d.http("GET", "/api/boards/default").json()["state"] == state)

        var metrics = ""
        let resynced = try eventually(timeout: 15) {
            metrics = try d.http("GET", "/metrics").text
            return (metric("foldsync_resyncs_total", in: metrics) ?? 0) > 0
        }
        #expect(resynced, "the laggard was resynchronised\n\(metrics)")
        let closed = try eventually(timeout: 15) {
            metrics = try d.http("GET", "/metrics").text
            return (metric("foldsync_slow_client_closes_total", in: metrics) ?? 0) >= 1
        }
        #expect(closed, "the laggard was closed\n\(metrics)")
        // Counted once under its reason (its full socket cannot take the 1008 frame: the one silent drop left).
        #expect(try eventually(timeout: 10) {
            metric(#"foldsync_connections_closed_total{reason="slow-client"}"#, in: try d.http("GET", "/metrics").text) == 1
        }, "the laggard's close is counted as slow-client\n\(metrics)")
        let kb = try d.residentKB()
        #expect(kb < 200 * 1024, "daemon RSS \(kb) kB")

        // Those who read are unaffected and still live.
        let last = try writer.answer(Wire.action(.toggle, id: "end", #""section":"s0""#), id: "end")
        #expect(last.rev == rev + 1)
        #expect(try reader.waitFor(type: "patch").rev == rev + 1)
    }
}
