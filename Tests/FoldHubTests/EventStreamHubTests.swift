@testable import FoldCore
@testable import FoldHub
import Testing

/// The hub's event streams without a socket: a stream is a session whose
/// share of every message leaves as one SSE event, framed once for all
/// streams; WebSocket connections in the same fan-out get the frame as before.
@Suite struct EventStreamHubTests {
    static func events(_ h: HubHarness, _ id: UInt64) -> [(type: String, id: String?, json: JSON)] {
        (h.streamed[id] ?? []).compactMap { bytes in
            let text = String(decoding: bytes, as: UTF8.self)
            guard text.hasPrefix("event: ") else { return nil }
            var type = "", eid: String?, data = ""
            for line in text.split(separator: "\n") {
                if line.hasPrefix("event: ") { type = String(line.dropFirst(7)) }
                if line.hasPrefix("id: ") { eid = String(line.dropFirst(4)) }
                if line.hasPrefix("data: ") { data = String(line.dropFirst(6)) }
            }
            return (type, eid, try! JSONParser.parse(Array(data.utf8)))
        }
    }

    @Test func aStreamGetsTheSnapshotThenEachChangeOnceFramed() throws {
        let h = HubHarness()
        h.open(1)
        h.subscribe(1)
        _ = h.read(1)
        h.feed(.http(HubRequest(id: 50, method: "GET", path: "/api/boards/default/events", peer: "10.0.0.9")))
        #expect(h.responses[50]?.contentType == "text/event-stream")
        let epoch = h.hub.boards["default"]!.committedEpoch
        var e = Self.events(h, 50)
        #expect(e.first?.type == "snapshot" && e.first?.id == "\(epoch):0")
        h.act(1, .toggle, #""section":"s1""#, tag: "t")
        h.finishCommits()
        e = Self.events(h, 50)
        let patch = try #require(e.first { $0.type == "patch" })
        #expect(patch.id == "\(epoch):1" && patch.json.rev == 1)
        // The WebSocket subscriber got the same patch as a frame, and its ack; the stream no ack.
        let ws = h.read(1)
        #expect(ws.contains { $0.type == "patch" && $0.rev == 1 } && ws.contains { $0.type == "ack" })
        #expect(!e.contains { $0.type == "ack" || $0.type == "error" })
        // Presence counts the stream, with the board's position as its id.
        h.advance(seconds: 2)
        let presence = Self.events(h, 50).last { $0.type == "presence" }
        #expect(presence?.json["viewers"]?.intValue == 2 && presence?.id == "\(epoch):1", "\(String(describing: presence))")
        // The heartbeat, and the end at the peer's close.
        h.advance(seconds: 15)
        #expect(h.streamed[50]?.contains(EventStream.heartbeat) == true)
        h.feed(.closed(id: 50))
        #expect(h.hub.streams.isEmpty && h.hub.sessions[50] == nil)
    }

    @Test func anOverflowingStreamIsResynchronisedThenEnded() throws {
        let h = HubHarness()
        h.feed(.http(HubRequest(id: 60, method: "GET", path: "/api/boards/default/events", peer: "10.0.0.9")))
        h.feed(.overflowed(id: 60, bytes: 100))
        let e = Self.events(h, 60)
        #expect(e.count == 1 && e[0].type == "snapshot")
        h.advance(seconds: Double(h.hub.settings.clients.slowClientSeconds) + 1)
        #expect(h.endedStreams.contains(60))
    }

    @Test(arguments: [
        ("E1:7", Position(epoch: "E1", rev: 7)), ("3f2a9c0d11e4b5a6:0", Position(epoch: "3f2a9c0d11e4b5a6", rev: 0)),
    ])
    func lastEventIDIsReadBack(text: String, position: Position) {
        #expect(EventStream.parsePosition(text) == position)
    }

    @Test func badLastEventIDsAreIgnored() {
        for text in ["", "E1", ":3", "E1:-1", "E1:x", "E 1:3", "a:b:3"] { #expect(EventStream.parsePosition(text) == nil, "\(text)") }
        #expect(EventStream.event(Array(#"{"type":"ack","id":null,"board":"b","rev":1}"#.utf8), position: nil) == nil)
    }
}
