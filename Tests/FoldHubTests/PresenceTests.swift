import FoldCore
import Testing
@testable import FoldHub

/// Viewer counts go out at most once per board per second, shortly after a change.
@Suite struct PresenceTests {
    func presences(_ h: HubHarness, since: Int) -> [Int] {
        h.effects[since...].compactMap { e -> Int? in
            guard case .fanOut(_, let f) = e, let json = try? JSONParser.parse(f), json.type == "presence" else { return nil }
            return json["viewers"]?.intValue
        }
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
        h.feed(.remote(.presence(["default": 3, "other": 2])))
        h.advance(seconds: 1)
        #expect(presences(h, since: mark) == [4])
        h.feed(.remote(.presence(["default": 3, "other": 5])))
        h.advance(seconds: 1)
        #expect(presences(h, since: mark) == [4], "a board nobody here watches changes nothing")
        h.feed(.remote(.presence([:])))
        h.advance(seconds: 1)
        #expect(presences(h, since: mark) == [4, 1])
    }
}
