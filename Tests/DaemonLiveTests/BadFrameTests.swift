import FoldCore
import FoldTestSupport
import Testing

/// Frames the transport refuses by closing (1003, 1007, 1009): only the
/// offending connection goes, its close frame with its code on every event
/// loop; and fragmented messages are reassembled.
@Suite struct BadFrameTests {
    enum Offence: String, CaseIterable {
        case binary, invalidUTF8, oversize
    }

    @Test(arguments: Offence.allCases, ["libev", "libuv", "poll"])
    func offenceClosesOnlyThatConnection(offence: Offence, eventLoop: String) throws {
        let d = try DaemonProcess(["--max-message-bytes", "4096", "--event-loop", eventLoop])
        defer { d.shutdown() }
        let bystander = try d.connect()
        try bystander.subscribe()
        let bad = try d.connect()
        try bad.subscribe()
        let expected: UInt16
        switch offence {
        case .binary:
            try bad.sendBinary(Array(#"{"type":"toggle","board":"default","section":"s0"}"#.utf8))
            expected = 1003
        case .invalidUTF8:
            let prefix = Array(#"{"type":"setTitle","board":"default","section":"s0","title":""#.utf8)
            try bad.sendText(bytes: prefix + [0xC3, 0x28, 0xFF] + Array(#""}"#.utf8))
            expected = 1007
        case .oversize:
            let title = String(repeating: "a", count: 5000)
            try bad.send(Wire.action(.setTitle, id: "big", #""section":"s0","title":"\#(title)""#))
            expected = 1009
        }
        // Past lws' own 5 s wait for a close answer: on a loaded machine the
        // answer (behind the rest of an oversized message) can take that long,
        // and lws then drops the connection anyway, which is what is checked.
        #expect(try bad.waitForClose(timeout: 10) == expected)
        #expect(bad.eof, "the daemon dropped the connection after closing")

        // Nothing was applied, and the other client still works.
        let answer = try bystander.perform(Wire.action(.toggle, id: "ok", #""section":"s1""#), id: "ok")
        #expect(answer.map(\.type) == ["patch", "ack"])
        #expect(answer.last?.rev == 1)
        #expect(try d.http("GET", "/api/boards/default").json()["state"]?.section("s0")?["title"]?.stringValue == "0")
    }

    /// The limit is exact: a message of `--max-message-bytes` − 1 and of
    /// exactly that many bytes is applied; one byte more closes with 1009 and
    /// applies nothing. One message each, on its own connection, sized by
    /// the length of one item (an item may hold 4,096 bytes, a title only 1,024).
    @Test func theMessageLimitIsExactToTheByte() throws {
        let limit = 4096
        let d = try DaemonProcess(["--max-message-bytes", String(limit)])
        defer { d.shutdown() }
        func message(_ size: Int, _ id: String) throws -> (text: String, item: String) {
            let shell = Wire.action(.setItems, id: id, #""section":"s0","items":[""]"#).utf8.count
            let item = String(repeating: "b", count: size - shell)
            let text = Wire.action(.setItems, id: id, #""section":"s0","items":["\#(item)"]"#)
            try #require(text.utf8.count == size)
            return (text, item)
        }
        for (size, id) in [(limit - 1, "under"), (limit, "at")] {
            let c = try d.connect()
            let m = try message(size, id)
            let a = try c.answer(m.text, id: id)
            #expect(a.type == "ack", "\(size) bytes: \(a)")
            let stored = try d.http("GET", "/api/boards/default").json()["state"]?.section("s0")?["items"]
            #expect(stored == .array([.string(m.item)]), "\(size) bytes")
        }
        let rev = try d.http("GET", "/api/boards/default").json().rev
        #expect(rev == 2)
        let c = try d.connect()
        try c.send(try message(limit + 1, "over").text)
        #expect(try c.waitForClose(timeout: 10) == 1009, "\(limit + 1) bytes")
        #expect(try d.http("GET", "/api/boards/default").json().rev == rev, "nothing of the refused message was applied")
    }

    /// lws hands a message over in one callback or in several (bounded by
    /// its receive chunk, 256 bytes, or by what one socket read brought): a
    /// message in one goes to the hub straight from lws' buffer, one in
    /// several is put together first. Sizes on both sides of a chunk, in
    /// turn on one connection, each arrive whole.
    @Test func messagesAroundTheReceiveChunkArriveWhole() throws {
        let d = try DaemonProcess()
        defer { d.shutdown() }
        let c = try d.connect()
        let shell = Wire.action(.setTitle, id: "n0", #""section":"s0","title":"""#).utf8.count
        for (i, size) in [1, 255, 256, 257, 512, 1000, 2].enumerated() {
            let letter = Character(UnicodeScalar(UInt8(ascii: "a") + UInt8(i)))
            let title = String(repeating: letter, count: max(1, size - shell))
            let a = try c.answer(Wire.action(.setTitle, id: "n\(i)", #""section":"s0","title":"\#(title)""#), id: "n\(i)")
            #expect(a.type == "ack", "message of \(size) bytes")
            let stored = try d.http("GET", "/api/boards/default").json()["state"]?.section("s0")?["title"]?.stringValue
            #expect(stored == title, "message of \(size) bytes")
        }
        // One frame of ≈ 40 KB: lws reads it from the socket in pieces, each
        // with payload still to come, so it is put together before the hub sees it.
        let items = (0..<40).map { "\"\($0)\(String(repeating: "y", count: 1000))\"" }.joined(separator: ",")
        let big = Wire.action(.setItems, id: "big", #""section":"s1","items":[\#(items)]"#)
        #expect(big.utf8.count > 40_000)
        #expect(try c.answer(big, id: "big").type == "ack")
        let s1 = try d.http("GET", "/api/boards/default").json()["state"]?.section("s1")?["items"]?.arrayValue
        #expect(s1?.count == 40)
        #expect(s1?.last?.stringValue == "39" + String(repeating: "y", count: 1000))
        // And a one-chunk message right after it arrives alone, not glued to the last one.
        #expect(try c.answer(Wire.action(.setTitle, id: "after", #""section":"s0","title":"z""#), id: "after").type == "ack")
        #expect(try d.http("GET", "/api/boards/default").json()["state"]?.section("s0")?["title"]?.stringValue == "z")
    }

    @Test func fragmentedMessageIsReassembled() throws {
        let d = try DaemonProcess()
        defer { d.shutdown() }
        let c = try d.connect()
        try c.subscribe()
        try c.sendFragmented(Wire.action(.setTitle, id: "frag", #""section":"s2","title":"in three pieces ✓""#), pieces: 3)
        var seen: [JSON] = []
        while seen.last?.type != "ack" && seen.last?.type != "error" { seen.append(try c.recvSkippingPresence()) }
        #expect(seen.map(\.type) == ["patch", "ack"])
        #expect(seen.last?["id"]?.stringValue == "frag")
        let state = try d.http("GET", "/api/boards/default").json()["state"]
        #expect(state?.section("s2")?["title"]?.stringValue == "in three pieces ✓")
        // A message split inside a multi-byte character is reassembled too.
        let text = Wire.action(.setTitle, id: "utf", #""section":"s1","title":"分分分分分分分分分分分""#)
        try c.sendFragmented(text, pieces: 7)
        #expect(try c.waitFor(type: "ack")["id"]?.stringValue == "utf")
    }
}
