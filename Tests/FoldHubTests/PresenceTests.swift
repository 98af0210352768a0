import FoldCore
import Testing
@testable import FoldHub

/// Viewer counts go out at most once per board per second, shortly after a change.
@Suite struct PresenceTests {
    func presences(_ h: HubHarness, since: Int) -> [Int] {
        presenceMessages(h, since: since).compactMap { $0["viewers"]?.intValue }
    }

    func presenceMessages(_ h: HubHarness, since: Int) -> [JSON] {
        h.effects[since...].compactMap { e -> JSON? in
            guard case .fanOut(_, let f, _) = e, let json = try? JSONParser.parse(f), json.type == "presence" else { return nil }
            return json
        }
    }

    /// `following` (an extension): everyone follows until they say otherwise,
    /// each `view` that changes the answer refreshes presence, repeats do not.
    @Test func followingCountsViewersWhoDoNotBrowse() {
        let h = HubHarness()
        for id: UInt64 in 1...3 {
            h.open(id)
            h.subscribe(id)
        }
        h.advance(seconds: 1)
        #expect(presenceMessages(h, since: 0).last?["following"]?.intValue == 3)
        var mark = h.effects.count
        h.send(2, #"{"type":"view","following":false}"#)
        h.send(3, #"{"type":"view","following":false}"#)
        h.advance(seconds: 1)
        let after = presenceMessages(h, since: mark)
        #expect(after.count == 1)
        #expect(after.first?["viewers"]?.intValue == 3 && after.first?["following"]?.intValue == 1)
        mark = h.effects.count
        h.send(3, #"{"type":"view","following":false}"#)
        h.advance(seconds: 2)
        #expect(presenceMessages(h, since: mark).isEmpty, "no change, no message")
        h.send(3, #"{"type":"view","following":true}"#)
        h.feed(.closed(id: 1))
        h.advance(seconds: 1)
        let last = presenceMessages(h, since: mark)
        #expect(last.count == 1 && last.first?["viewers"]?.intValue == 2 && last.first?["following"]?.intValue == 1)
        // A bad `view` is an error.
        h.send(2, #"{"type":"view","following":1}"#)
        #expect(h.read(2).last?["code"]?.stringValue == "bad_request")
    }

    @Test func aCrowdJoiningCostsOneMessagePerSecond() {
        let h = HubHarness()
        for id: UInt64 in 1...5 {
            h.open(id)
            h.subscribe(id)
        }
        #expect(presences(h, since: 0).isEmpty, "not at once")
        h.advance(seconds: 0.2)
        #expect(presences(h, since: 0) == [5], "one message for five joins")

        let mark = h.effects.count
        h.open(6)
        h.subscribe(6)
        h.advance(seconds: 0.3)
        #expect(presences(h, since: mark).isEmpty, "not twice within a second")
        h.open(7)
        h.subscribe(7)
        h.advance(seconds: 0.4)
        #expect(presences(h, since: mark).isEmpty)
        h.advance(seconds: 0.3)
        #expect(presences(h, since: mark) == [7], "one second after the last, with every change since")
        h.advance(seconds: 5)
        #expect(presences(h, since: mark) == [7], "nothing when nothing changed")
    }

    @Test func leavingCountsToo() {
        let h = HubHarness()
        h.open(1)
        h.open(2)
        h.subscribe(1)
        h.subscribe(2)
        h.advance(seconds: 1)
        let mark = h.effects.count
        h.feed(.closed(id: 2))
        h.advance(seconds: 1)
        #expect(presences(h, since: mark) == [1])
    }

    /// A shared store: the count shown adds the other nodes' viewers, this
    /// node's own count is handed to the heartbeat, and a node that drops out
    /// of the heartbeat rows drops out of the count.
    @Test func otherNodesViewersAreCounted() {
        let h = HubHarness()
        h.open(1)
        h.subscribe(1)
        h.advance(seconds: 1)
        #expect(h.shared == ["default 1"])
        let mark = h.effects.count
        h.feed(.remote(.presence(["default": ViewerCount(viewers: 3, following: 2), "other": ViewerCount(viewers: 2, following: 2)])))
        h.advance(seconds: 1)
        #expect(presences(h, since: mark) == [4])
        h.feed(.remote(.presence(["default": ViewerCount(viewers: 3, following: 2), "other": ViewerCount(viewers: 5, following: 5)])))
        h.advance(seconds: 1)
        #expect(presences(h, since: mark) == [4], "a board nobody here watches changes nothing")
        h.feed(.remote(.presence([:])))
        h.advance(seconds: 1)
        #expect(presences(h, since: mark) == [4, 1])
    }
}
