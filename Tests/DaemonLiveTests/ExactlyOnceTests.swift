import FoldCore
import FoldTestSupport
import Foundation
import Testing

/// Keyed actions against the real daemon and its SQLite file: a repeat of
/// an accepted key, on any connection, after a restart or a `kill -9`, is
/// answered with the first rev and never applied again.
@Suite struct ExactlyOnceTests {
    static func toggle(_ key: String, id: String, section: String = "s1") -> String {
        Wire.action(.toggle, id: id, #""section":"\#(section)","key":"\#(key)""#)
    }

    func expanded(_ d: DaemonProcess, _ section: String = "s1") throws -> Bool? {
        try d.http("GET", "/api/boards/default").json()["state"]?.section(section)?["expanded"]?.boolValue
    }

    @Test func aRepeatOnAnotherConnectionGetsTheFirstRev() throws {
        let d = try DaemonProcess()
        defer { d.shutdown() }
        let a = try d.connect(), b = try d.connect()
        let first = try a.answer(Self.toggle("c1-1", id: "1"), id: "1")
        #expect(first.type == "ack" && first.rev == 1 && first["duplicate"] == nil, "\(first)")
        let again = try b.answer(Self.toggle("c1-1", id: "2"), id: "2")
        #expect(again.type == "ack" && again.rev == 1 && again["duplicate"]?.boolValue == true, "\(again)")
        #expect(try d.http("GET", "/api/boards/default").json().rev == 1)
        #expect(try expanded(d) == true, "toggled once")
        let other = try b.answer(Self.toggle("c1-1", id: "3", section: "s2"), id: "3")
        #expect(other.type == "error" && other.code == "conflict", "\(other)")
        #expect(metric("foldsync_duplicate_actions_total", in: try d.http("GET", "/metrics").text) == 1)
    }

    @Test func aKeyOutlivesARestart() throws {
        let d = try DaemonProcess()
        defer { d.shutdown() }
        #expect(try d.connect().answer(Self.toggle("r-1", id: "1"), id: "1").rev == 1)
        #expect(d.stop() == 0)
        try d.restart()
        let again = try d.connect().answer(Self.toggle("r-1", id: "2"), id: "2")
        #expect(again.rev == 1 && again["duplicate"]?.boolValue == true, "\(again)")
        #expect(try expanded(d) == true)
    }

    /// The daemon killed at a random moment after the action was sent (before
    /// its commit, between commit and ack, after the ack): sent again after
    /// the restart, the action is applied exactly once, whichever it was.
    @Test func killedAnywhereTheActionIsAppliedOnce() throws {
        let d = try DaemonProcess()
        defer { d.shutdown() }
        var random = SplitMix64(seed: 40)
        for round in 1...6 {
            let before = try d.http("GET", "/api/boards/default").json()
            let rev = try #require(before.rev)
            let was = try #require(before["state"]?.section("s0")?["expanded"]?.boolValue)
            let c = try d.connect()
            try c.send(Self.toggle("k9-\(round)", id: "x", section: "s0"))
            usleep(UInt32(random.next() % 4_000))
            d.kill9()
            try d.restart()
            let answer = try d.connect().answer(Self.toggle("k9-\(round)", id: "y", section: "s0"), id: "y")
            #expect(answer.type == "ack" && answer.rev == rev + 1, "round \(round): \(answer)")
            let after = try d.http("GET", "/api/boards/default").json()
            #expect(after.rev == rev + 1 && after["state"]?.section("s0")?["expanded"]?.boolValue == !was, "round \(round)")
        }
    }

    @Test func httpIdempotencyKey() throws {
        let d = try DaemonProcess()
        defer { d.shutdown() }
        let body = #"{"type":"toggle","section":"s0"}"#
        let first = try d.http("POST", "/api/boards/default/actions", body: body, headers: [("Idempotency-Key", "post-1")])
        let again = try d.http("POST", "/api/boards/default/actions", body: body, headers: [("Idempotency-Key", "post-1")])
        #expect(first.status == 200 && first.text == #"{"rev":1}"#, "\(first.text)")
        #expect(again.status == 200 && again.text == #"{"rev":1,"duplicate":true}"#, "\(again.text)")
        #expect(again.headers["idempotent-replayed"] == "true")
        let other = try d.http("POST", "/api/boards/default/actions", body: #"{"type":"toggle","section":"s2"}"#, headers: [("Idempotency-Key", "post-1")])
        #expect(other.status == 422 && other.text.contains("another action"), "\(other.text)")
        let long = try d.http("POST", "/api/boards/default/actions", body: body, headers: [("Idempotency-Key", String(repeating: "k", count: 65))])
        #expect(long.status == 400 && long.text.contains("Idempotency-Key"), "\(long.text)")
        #expect(try d.http("GET", "/api/boards/default").json().rev == 1)
        #expect(try expanded(d, "s0") == true)
    }
}
