import FoldCore
import FoldTestSupport
import Foundation
import Testing

/// Corked writes: messages queued for one connection leave in
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

    /// A change alone in its turn is written to each subscriber as the
    /// fan-out goes, except to its originator, whose ack follows in the same
    /// turn: patch and ack leave in one write, the patch first. Changes are
    /// spaced so that no connection is paced.
    @Test func aLoneChangeReachesItsOriginatorAsPatchAndAckInOneWrite() throws {
        let d = try DaemonProcess()
        defer { d.shutdown() }
        let publisher = try d.connect(), other = try d.connect()
        _ = try publisher.subscribe()
        _ = try other.subscribe()
        // Presence (at most once a second) would add writes of its own: both have seen the last one first.
        for s in [publisher, other] {
            while try s.waitFor(type: "presence")["viewers"]?.intValue != 2 {}
        }
        let before = try d.http("GET", "/metrics").text
        let count = 20
        for i in 0..<count {
            let seen = try publisher.perform(Wire.action(.toggle, id: "t\(i)", #""section":"s1""#), id: "t\(i)")
            #expect(seen.map(\.type) == ["patch", "ack"])
            _ = try other.waitFor(type: "patch")
            usleep(20_000)
        }
        let after = try d.http("GET", "/metrics").text
        func delta(_ name: String) -> Double { (metric(name, in: after) ?? 0) - (metric(name, in: before) ?? 0) }
        // Per change: the other subscriber's patch (one write) and the originator's patch and ack (one write).
        #expect(delta("foldsync_ws_messages_written_total") == Double(3 * count))
        #expect(delta("foldsync_ws_writes_total") == Double(2 * count))
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

    /// A reader that falls behind: the daemon's socket fills, writes go
    /// short, lws holds the rest, and later writes queue behind it. The
    /// reader still gets every frame whole and in order, and the other
    /// subscriber keeps up.
    ///
    /// This is the proof that sending on the socket beside lws is safe on
    /// the lws it runs against (4.1.6 on Debian 12, 4.3.5 on Debian 13:
    /// `Tests/debian/run.sh` runs it there): while lws holds the tail of a
    /// short write, lws' own frames (the PONGs to the reader's PINGs) and
    /// every later patch must wait behind it. A direct write ahead of the
    /// held bytes, or a PONG inside a frame, breaks the framing this reader
    /// checks byte by byte.
    @Test func aReaderThatFallsBehindGetsEveryFrameWholeThroughShortWrites() throws {
        let d = try DaemonProcess(["--max-actions-per-second", "100000", "--action-burst", "100000",
                                   "--max-queue-frames", "100000", "--max-queue-bytes", "1073741824"])
        defer { d.shutdown() }
        let lagging = try d.connect(protocols: ["foldsync.v1"], receiveBuffer: 4096)
        var rev = try #require(try lagging.subscribe().rev)
        let keeping = try d.connect(protocols: ["foldsync.v1"])
        var keptRev = try #require(try keeping.subscribe().rev)
        let publisher = try d.connect()
        // 200 patches of 14 items of 2-4 KB (each under the 64 KB message
        // limit), about 8 MB: more than a 4 KB window and the daemon's send
        // buffer (the kernel's 4 MB at most) hold.
        let count = 200
        func item(_ i: Int, _ k: Int) -> String { "t\(i).\(k)-" + String(repeating: "y", count: 2_000 + (i * 53 + k * 7) % 2_000) }
        var burst: [UInt8] = []
        for i in 0..<count {
            let items = (0..<14).map { "\"\(item(i, $0))\"" }.joined(separator: ",")
            burst += TestSocket.frame(opcode: 0x1, Array(Wire.action(.setItems, id: "s\(i)", #""section":"s\#(i % 3)","items":[\#(items)]"#).utf8))
        }
        try publisher.sendRaw(burst)
        for _ in 0..<count {
            let m = try keeping.recvSkippingPresence()
            try #require(m.type == "patch", "\(m)")
            try #require(m.rev == keptRev + 1)
            keptRev += 1
        }
        // lws answers these PINGs with PONGs of its own while it holds the tail of a short write;
        // then more patches, sent on the socket by the daemon while lws still holds bytes.
        let pings: [[UInt8]] = (0..<3).map { Array("ping-\($0)".utf8) }
        for p in pings { try lagging.sendRaw(TestSocket.frame(opcode: 0x9, p)) }
        let more = 20
        var second: [UInt8] = []
        for i in count..<(count + more) {
            let items = (0..<14).map { "\"\(item(i, $0))\"" }.joined(separator: ",")
            second += TestSocket.frame(opcode: 0x1, Array(Wire.action(.setItems, id: "s\(i)", #""section":"s\#(i % 3)","items":[\#(items)]"#).utf8))
        }
        try publisher.sendRaw(second)
        for _ in 0..<more {
            let m = try keeping.recvSkippingPresence()
            try #require(m.type == "patch", "\(m)")
        }
        // Only now does the lagging reader start: by then its socket has been full for a while.
        for i in 0..<(count + more) {
            let m = try lagging.recvSkippingPresence(timeout: 20)
            try #require(m.type == "patch", "\(m)")
            try #require(m.rev == rev + 1, "patch \(i): rev \(m.rev ?? -1) after \(rev)")
            rev += 1
            let items = try #require(m["ops"]?.arrayValue?.first?["value"]?.arrayValue, "\(m)")
            #expect(items.map { $0.stringValue ?? "" } == (0..<14).map { item(i, $0) })
        }
        // RFC 6455 §5.5.3 lets lws answer only the latest of PINGs it has not answered yet: one PONG at least,
        // each carrying a PING's payload whole.
        #expect(try eventually(timeout: 10) {
            if lagging.pongs.isEmpty, try lagging.fill(until: Date().addingTimeInterval(0.2)) { while try lagging.parseFrame() {} }
            return !lagging.pongs.isEmpty
        }, "no PONG came")
        #expect(lagging.pongs.allSatisfy { pings.contains($0) }, "PONGs: \(lagging.pongs.map { String(decoding: $0, as: UTF8.self) })")
        #expect(try d.http("GET", "/api/boards/default").json().rev == rev)
        #expect(lagging.batchFrames == 0)
        let metrics = try d.http("GET", "/metrics").text
        let short = metric("foldsync_ws_short_writes_total", in: metrics) ?? 0
        #expect(short > 0, "the lagging reader's socket never filled: the test proves nothing\n\(metrics)")
    }
    /// The gather is sized by what a write costs on this machine: /metrics
    /// shows the assumed 2 µs until a flush of 40 subscribers is measured,
    /// then a measure within its bounds (each burst's changes commit
    /// together and reach every subscriber in one flush at the turn's end).
    @Test func theCostOfAWriteIsMeasuredInLargeFlushesAndShown() throws {
        let d = try DaemonProcess(["--max-actions-per-second", "100000", "--action-burst", "100000"])
        defer { d.shutdown() }
        let before = try d.http("GET", "/metrics").text
        #expect(metric("foldsync_ws_write_cost_nanoseconds", in: before) == 2_000)
        #expect(metric("foldsync_ws_paced_connections", in: before) == 0)
        #expect(metric("foldsync_ws_gather_nanoseconds", in: before) == 4_000_000)
        var subscribers: [TestSocket] = []
        for _ in 0..<40 {
            let c = try d.connect()
            _ = try c.subscribe()
            subscribers.append(c)
        }
        let publisher = try d.connect()
        var cost: Double?
        // A window closes on a write at least 50 ms after it opened: bursts
        // 60 ms apart, at most 40 (each burst is 20 patches to each subscriber).
        for round in 0..<40 {
            var burst: [UInt8] = []
            for i in 0..<20 {
                burst += TestSocket.frame(opcode: 0x1, Array(Wire.action(.toggle, id: "r\(round)-\(i)", #""section":"s1""#).utf8))
            }
            try publisher.sendRaw(burst)
            var acks = 0
            while acks < 20 {
                let m = try publisher.recvSkippingPresence()
                if m.type == "ack" { acks += 1 }
            }
            Thread.sleep(forTimeInterval: 0.06)
            cost = metric("foldsync_ws_write_cost_nanoseconds", in: try d.http("GET", "/metrics").text)
            if let c = cost, c != 2_000 { break }
        }
        let measured = try #require(cost)
        #expect(measured != 2_000, "the cost of a write was never measured")
        #expect((500...50_000).contains(measured), "\(measured) ns a write")
        withExtendedLifetime(subscribers) {}
    }
}
