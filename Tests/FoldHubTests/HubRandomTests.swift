import FoldCore
import Testing
@testable import FoldHub

/// The hub draws from the source it is given, never from the system itself:
/// the same seed gives the same epochs and the same probe times.
@Suite struct HubRandomTests {
    func createdEpoch(seed: UInt64) -> String? {
        let h = HubHarness(seed: seed)
        h.autoCommit = true
        h.feed(.http(HubRequest(id: 1, method: "PUT", path: "/api/boards/new", body: Array(#"{"mode":"multi","sections":[]}"#.utf8))))
        return h.hub.board("new")?.committedEpoch
    }

    @Test func epochsComeFromTheGivenSource() throws {
        let a = try #require(createdEpoch(seed: 7))
        #expect(a.count == 16 && a.allSatisfy(\.isHexDigit))
        #expect(createdEpoch(seed: 7) == a)
        #expect(createdEpoch(seed: 8) != a)
    }

    @Test func probeTimesAfterAFailureComeFromTheGivenSource() {
        func firstProbe(seed: UInt64) -> Instant? {
            let h = HubHarness(seed: seed)
            h.store.failure = "disk full"
            h.feed(.http(HubRequest(id: 1, method: "POST", path: "/api/boards/default/actions", body: Array(#"{"type":"toggle","section":"s1"}"#.utf8))))
            h.finishCommits()
            return h.wakes.last
        }
        let a = firstProbe(seed: 3)
        #expect(a != nil)
        #expect(firstProbe(seed: 3) == a)
        #expect(firstProbe(seed: 4) != a)
    }
}
