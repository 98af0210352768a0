import FoldCore
import FoldTestSupport
import Foundation
import Testing

/// Corked writes (issue 10): messages queued for one connection leave in
/// one write, as exact RFC 6455 frames for plain peers and as one
/// newline-separated frame for batching peers.
@Suite struct CorkedWriteTests {
    /// A burst of changes from one connection commits in a few groups; each
    /// group reaches a plain subscriber as several back-to-back frames. The
    /// strict test client rejects a masked, merged or malformed frame.
    @Test func aBurstReachesAPlainSubscriberAsExactFramesInFewerWrites() throws {
        let d = try DaemonProcess(["--max-actions-per-second", "100000", "--action-burst", "100000"])
        defer { d.shutdown() }
        let plain = try d.connect(protocols: ["foldsync.v1"])
        let snap = try plain.subscribe()
        var state = try #require(snap["state"])
        var rev = try #require(snap.rev)
        let before = try d.http("GET", "/metrics").text
        let publisher = try d.connect()
        let count = 300
        var burst: [UInt8] = []
        for i in 0..<count {
            // Titles from a few bytes to 1,000: frames with 7-bit and 16-bit lengths.
            let title = "t\(i)-" + String(repeating: "x", count: (i * 37) % 1_000)
            burst += TestSocket.frame(opcode: 0x1, Array(Wire.action(.setTitle, id: "b\(i)", #""section":"s\#(i % 3)","title":"\#(title)""#).utf8))
        }
        try publisher.sendRaw(burst)
        var titles: [String: String] = [:]
        var patches = 0
        while patches < count {
            let m = try plain.recvSkippingPresence()
            try #require(m.type == "patch", "expected a patch, got \(m)")
            #expect(m.rev == rev + 1)
            rev = try #require(m.rev)
            state = try JSONPatch.apply(try #require(m["ops"]), to: state)
            patches += 1
        }
        // The publisher's acks may still be waiting for their write (a busy
        // connection is paced): every one of them, before the counters are read.
        var acks = 0
        while acks < count {
            let m = try publisher.recvSkippingPresence()
            try #require(m.type == "ack" || m.type == "patch", "\(m)")
            if m.type == "ack" { acks += 1 }
        }
        for s in state["sections"]?.arrayValue ?? [] {
            if let id = s["id"]?.stringValue { titles[id] = s["title"]?.stringValue }
        }
        #expect(plain.batchFrames == 0, "a plain peer must never get a batch frame")
        #expect(plain.textFrames >= count)
        let last = (0..<count).filter { $0 % 3 == 2 }.last!
        #expect(titles["s2"] == "t\(last)-" + String(repeating: "x", count: (last * 37) % 1_000))
        let got = try d.http("GET", "/api/boards/default").json()
        #expect(got.rev == rev)
        #expect(got["state"] == state)

        let after = try d.http("GET", "/metrics").text
        let writes = (metric("foldsync_ws_writes_total", in: after) ?? 0) - (metric("foldsync_ws_writes_total", in: before) ?? 0)
        let messages = (metric("foldsync_ws_messages_written_total", in: after) ?? 0) - (metric("foldsync_ws_messages_written_total", in: before) ?? 0)
        // 300 patches to the subscriber and 300 acks to the publisher, in far fewer writes.
        #expect(messages >= Double(2 * count))
        #expect(writes > 0 && writes < messages / 2, "writes \(writes) for \(messages) messages")
    }

    /// The same burst to a batching subscriber: newline-separated messages in
    /// frames, every rev once and in order.
    @Test func aBurstReachesABatchingSubscriberInBatchFrames() throws {
        let d = try DaemonProcess(["--max-actions-per-second", "100000", "--action-burst", "100000"])
        defer { d.shutdown() }
        let batching = try d.connect(protocols: ["foldsync.v1.batch"])
        var rev = try #require(try batching.subscribe().rev)
        let publisher = try d.connect()
        var burst: [UInt8] = []
        for i in 0..<200 {
            burst += TestSocket.frame(opcode: 0x1, Array(Wire.action(.toggle, id: "t\(i)", #""section":"s\#(i % 3)""#).utf8))
        }
        try publisher.sendRaw(burst)
        for _ in 0..<200 {
            let m = try batching.recvSkippingPresence()
            try #require(m.type == "patch")
            #expect(m.rev == rev + 1)
            rev = try #require(m.rev)
        }
        #expect(batching.batchFrames > 0)
    }
}
