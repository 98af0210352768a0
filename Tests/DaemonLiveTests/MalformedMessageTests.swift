import FoldCore
import FoldTestSupport
import Foundation
import Testing

/// Messages that are wrong but well-framed get an `error` with the right
/// code, and the connection keeps working. Also a burst of 10,000.
@Suite struct MalformedMessageTests {
    static let cases: [(String, String)] = [
        ("not json", "bad_request"),
        ("", "bad_request"),
        ("[1,2,3]", "bad_request"),
        (#""a string""#, "bad_request"),
        ("42", "bad_request"),
        (#"{"type":"toggle","board":"default","section":"s0",}"#, "bad_request"),
        (#"{"board":"default"}"#, "bad_request"),
        (#"{"type":"frobnicate","board":"default"}"#, "unknown_type"),
        (#"{"type":7,"board":"default"}"#, "bad_request"),
        (#"{"type":"toggle","board":"default"}"#, "bad_request"),
        (#"{"type":"toggle","board":"default","section":5}"#, "bad_request"),
        (#"{"type":"toggle","section":"s0"}"#, "bad_request"),
        (#"{"type":"toggle","board":"bad name!","section":"s0"}"#, "bad_request"),
        (#"{"type":"setMode","board":"default","mode":"triple"}"#, "bad_request"),
        (#"{"type":"moveSection","board":"default","section":"s0","to":"1"}"#, "bad_request"),
        (#"{"type":"moveSection","board":"default","section":"s0","to":1e400}"#, "bad_request"),
        (#"{"type":"moveSection","board":"default","section":"s0","to":99999999999999999999}"#, "bad_request"),
        (#"{"type":"moveSection","board":"default","section":"s0","to":1.5}"#, "bad_request"),
        (#"{"type":"toggle","board":"default","section":"s0","ifRev":-1}"#, "bad_request"),
        (#"{"type":"setTitle","board":"default","section":"s0","title":"bad \q escape"}"#, "bad_request"),
        (#"{"type":"setTitle","board":"default","section":"s0","title":"\ud800 lone"}"#, "bad_request"),
        (#"{"type":"setItems","board":"default","section":"s0","items":{"a":1}}"#, "bad_request"),
        (#"{"type":"subscribe","board":"default","since":{"epoch":"x"}}"#, "bad_request"),
        (#"{"type":"toggle","board":"default","section":"s0","section":"s1"}"#, "bad_request"),
        (String(repeating: "[", count: 1000) + String(repeating: "]", count: 1000), "bad_request"),
        (#"{"type":"toggle","board":"default","section":"s0","x":"# + String(repeating: "{\"a\":", count: 1000) + "1" + String(repeating: "}", count: 1000) + "}", "bad_request"),
    ]

    @Test func eachBadMessageGetsTheRightErrorAndTheConnectionKeepsWorking() throws {
        let d = try DaemonProcess()
        defer { d.shutdown() }
        let c = try d.connect()
        try c.subscribe()
        for (i, (text, code)) in Self.cases.enumerated() {
            try c.send(text)
            let m = try c.recvSkippingPresence()
            #expect(m.type == "error", "case \(i): \(text.prefix(80))")
            #expect(m.code == code, "case \(i): \(text.prefix(80)) → \(m)")
            // Still working: a real action is applied.
            let ok = try c.perform(Wire.action(.toggle, id: "ok\(i)", #""section":"s0""#), id: "ok\(i)")
            #expect(ok.map(\.type) == ["patch", "ack"], "after case \(i)")
            #expect(c.closeCode == nil && !c.eof)
        }
        #expect(try d.http("GET", "/api/boards/default").json().rev == Self.cases.count)
    }

    @Test func errorsEchoTheRequestIdAndBoard() throws {
        let d = try DaemonProcess()
        defer { d.shutdown() }
        let c = try d.connect()
        let e = try c.answer(#"{"type":"toggle","board":"default","id":"q-1"}"#, id: "q-1")
        #expect(e.code == "bad_request")
        #expect(e["id"]?.stringValue == "q-1")
        #expect(e["board"]?.stringValue == "default")
    }

    @Test func unknownExtraFieldsAreIgnored() throws {
        let d = try DaemonProcess()
        defer { d.shutdown() }
        let c = try d.connect()
        try c.send(#"{"type":"subscribe","board":"default","future":{"x":[1,2]},"v":2}"#)
        #expect(try c.recvSkippingPresence().type == "snapshot")
        let seen = try c.perform(#"{"type":"toggle","board":"default","section":"s1","id":"x","hint":"new","n":1e400}"#, id: "x")
        #expect(seen.map(\.type) == ["patch", "ack"])
    }

    /// 10,000 messages written before any is read: every one is answered,
    /// in order, and none acknowledged is lost. The rate limiter is opened
    /// wide here: this is about the pipeline (the limiter has its own test).
    @Test func burstOfTenThousandIsAnsweredInFull() throws {
        let d = try DaemonProcess(["--max-actions-per-second", "1000000", "--action-burst", "20000"])
        defer { d.shutdown() }
        let c = try d.connect()
        let n = 10_000
        var burst: [UInt8] = []
        for i in 0..<n {
            let text = i % 10 == 9
                ? #"{"type":"toggle","board":"default","id":"m\#(i)","section":"missing"}"#
                : #"{"type":"toggle","board":"default","id":"m\#(i)","section":"s\#(i % 3)"}"#
            burst += TestSocket.frame(opcode: 0x1, Array(text.utf8))
        }
        try c.sendRaw(burst)  // bounded by SO_SNDTIMEO: a daemon that stopped reading fails the test
        // Refusals may overtake acks (an ack waits for its commit); acks keep their order.
        var answered = Set<Int>(), acks = 0, errors = 0, lastAcked = -1, lastRev = 0
        while answered.count < n {
            let m = try c.recvSkippingPresence(timeout: 30)
            let id = try #require(m["id"]?.stringValue.flatMap { Int($0.dropFirst()) })
            #expect(answered.insert(id).inserted, "m\(id) answered twice")
            if m.type == "ack" {
                acks += 1
                #expect(id % 10 != 9 && id > lastAcked, "m\(id)")
                lastAcked = id
                let rev = try #require(m.rev)
                #expect(rev == lastRev + 1)
                lastRev = rev
            } else {
                #expect(id % 10 == 9 && m.code == "not_found", "m\(id): \(m)")
                errors += 1
            }
        }
        #expect(acks == 9_000 && errors == 1_000)
        // Another client is served, and every acknowledged change is there.
        let other = try d.connect()
        let snap = try other.subscribe()
        #expect(snap.rev == acks)
        #expect(try d.http("GET", "/api/boards/default").json().rev == acks)
    }
}
