import FoldCore
import FoldTestSupport
import Foundation
import Glibc
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

    /// At the default heartbeat (15 s): the reader's close is noticed long
    /// before the next heartbeat, and the daemon does not spin meanwhile.
    @Test func aReaderThatWentIsCountedAsEndedAtOnceAndCostsNothing() throws {
        let d = try DaemonProcess()
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
        // Measured over a quiet window only: the /metrics polls above cost CPU
        // of their own, more on a loaded machine. A loop polling the closed
        // socket would use most of a core here.
        let before = try Self.cpuSeconds(d.pid)
        Thread.sleep(forTimeInterval: 3)
        let used = try Self.cpuSeconds(d.pid) - before
        #expect(used < 0.6, "the daemon used \(used) s of CPU in 3 s after its only reader left")
    }

    /// User plus system time of process `pid` so far, from /proc.
    static func cpuSeconds(_ pid: Int32) throws -> Double {
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
        let rest = stat[stat.index(after: stat.lastIndex(of: ")")!)...].split(separator: " ")
        return (Double(rest[11])! + Double(rest[12])!) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
}
