import FoldCore
import FoldTestSupport
import Testing

/// The connection's first moments: `hello`, subprotocol negotiation, batch frames.
@Suite struct HandshakeTests {
    @Test(arguments: [
        ([String](), nil as String?),
        (["foldsync.v1"], "foldsync.v1"),
        (["foldsync.v1.batch"], "foldsync.v1.batch"),
        (["foldsync.v1.batch", "foldsync.v1"], "foldsync.v1.batch"),
    ])
    func helloIsFirstWithEachSubprotocol(offered: [String], expected: String?) throws {
        let d = try DaemonProcess()
        defer { d.shutdown() }
        let s = try d.connect(protocols: offered, keepHello: true)
        #expect(s.negotiated == expected)
        let hello = try s.recvJSON()
        #expect(hello.type == "hello")
        #expect(hello["protocol"]?.intValue == 1)
        #expect(hello["server"]?.stringValue?.isEmpty == false)
        #expect(hello["session"]?.stringValue?.isEmpty == false)
        // And the connection works.
        let snap = try s.subscribe()
        #expect(snap["state"] == Wire.defaultState)
    }

    @Test func sessionsAreDistinct() throws {
        let d = try DaemonProcess()
        defer { d.shutdown() }
        let a = try d.connect(keepHello: true), b = try d.connect(keepHello: true)
        let ha = try a.recvJSON(), hb = try b.recvJSON()
        #expect(ha["session"] != hb["session"])
    }

    /// Queued messages may share a frame, split by "\n"; each part is a whole message.
    @Test func batchFramesSplitIntoWholeMessages() throws {
        let d = try DaemonProcess()
        defer { d.shutdown() }
        let batch = try d.connect(protocols: ["foldsync.v1.batch"])
        let plain = try d.connect(protocols: ["foldsync.v1"])
        let snap = try batch.subscribe()
        try plain.subscribe()
        let start = try #require(snap.rev)
        // Pipeline many actions without reading: answers queue up behind each other.
        let n = 60
        for i in 0..<n { try batch.send(Wire.action(.toggle, id: "t\(i)", #""section":"s1""#)) }
        var patches: [Int] = [], acks: [String] = []
        while acks.count < n {
            let m = try batch.recvSkippingPresence()
            if m.type == "patch" { patches.append(try #require(m.rev)) }
            if m.type == "ack" { acks.append(try #require(m["id"]?.stringValue)) }
            #expect(m.type != "error")
        }
        #expect(patches == Array((start + 1)...(start + n)))
        #expect(acks == (0..<n).map { "t\($0)" })
        // The plain client sees the same patches one per frame.
        var plainRevs: [Int] = []
        while plainRevs.count < n {
            let m = try plain.recvSkippingPresence()
            if m.type == "patch" { plainRevs.append(try #require(m.rev)) }
        }
        #expect(plainRevs == patches)
        #expect(plain.batchFrames == 0)
        // 120 answers in far fewer frames shows batching happened (the frame count is not asserted exactly).
        #expect(batch.batchFrames > 0)
    }
}
