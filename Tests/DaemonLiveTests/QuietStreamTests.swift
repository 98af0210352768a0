import FoldCore
import FoldTestSupport
import Foundation
import Testing

/// An event stream on a board where nothing happens: it stays open, gets
/// every heartbeat, and still carries the next change; a reader that goes
/// is counted as ended. Each test stays quiet for the whole time it claims.
@Suite struct QuietStreamTests {
    /// Four heartbeat intervals with no change, at a short interval and at the default one (15 s).
    @Test(arguments: [2, 15])
    func aQuietStreamLivesAndGetsEveryHeartbeat(interval: Int) throws {
        let flags = interval == 15 ? [] : ["--stream-heartbeat", "\(interval)"]
        let d = try DaemonProcess(flags)
        defer { d.shutdown() }
        let c = try EventStreamClient(port: d.port, path: "/api/boards/default/events")
        #expect(try c.next()?.type == "snapshot")
        let quiet = Double(4 * interval) + 1.5
        let deadline = Date().addingTimeInterval(quiet)
        var events: [String] = []
        while !c.eof, deadline.timeIntervalSinceNow > 0 {
            if let e = try c.next(timeout: deadline.timeIntervalSinceNow) { events.append(e.type) }
        }
        #expect(!c.eof, "the stream ended on a quiet board after less than \(quiet) s")
        #expect(c.comments.filter { $0 == "heartbeat" }.count >= 4, "\(c.comments) in \(quiet) s at \(interval) s")
        #expect(events.allSatisfy { $0 == "presence" }, "\(events)")
        // Still live: the next change arrives.
        #expect(try d.http("POST", "/api/boards/default/actions", body: #"{"type":"toggle","section":"s1"}"#).status == 200)
        #expect(try c.next("patch").json?.rev == 1)
    }

    @Test func aReaderThatWentIsCountedAsEndedWithinTwoHeartbeats() throws {
        let d = try DaemonProcess(["--stream-heartbeat", "2"])
        defer { d.shutdown() }
        var c: EventStreamClient? = try EventStreamClient(port: d.port, path: "/api/boards/default/events")
        #expect(try c?.next()?.type == "snapshot")
        #expect(try eventually(timeout: 3) { metric("foldsync_event_streams", in: try d.http("GET", "/metrics").text) == 1 })
        c = nil
        var metrics = ""
        #expect(try eventually(timeout: 4) {
            metrics = try d.http("GET", "/metrics").text
            return metric(#"foldsync_event_streams_ended_total{reason="reader"}"#, in: metrics) == 1
                && metric("foldsync_event_streams", in: metrics) == 0
        }, "\(metrics)")
    }
}
