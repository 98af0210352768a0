import FoldCore
import Testing
@testable import FoldHub

/// Boards created and deleted over HTTP: subscribers see the snapshot and `deleted` once committed.
@Suite struct BoardLifecycleTests {
    @Test func replaceDeleteAndCreateAgain() {
        let h = HubHarness()
        h.autoCommit = true
        h.open(1)
        h.subscribe(1)
        _ = h.read(1)
        let doc = Array(#"{"mode":"multi","sections":[{"id":"a","title":"A","items":[],"expanded":false}]}"#.utf8)
        h.feed(.http(HubRequest(id: 1, method: "PUT", path: "/api/boards/default", body: doc)))
        #expect(h.read(1).map(\.type) == ["patch"], "replacing a board that exists is a change like any other")
        #expect(h.responses[1]?.status == 200)

        h.feed(.http(HubRequest(id: 2, method: "DELETE", path: "/api/boards/default")))
        #expect(h.read(1).map(\.type) == ["deleted"] && h.responses[2]?.status == 204)
        #expect(h.hub.boardCount == 0 && h.store.boards.isEmpty)

        h.feed(.http(HubRequest(id: 3, method: "PUT", path: "/api/boards/default", body: doc)))
        let snap = h.read(1)
        #expect(snap.map(\.type) == ["snapshot"], "still subscribed by name")
        #expect(snap.first?.rev == 0 && snap.first?["epoch"]?.stringValue != "e0", "a new board, a new epoch")
        #expect(h.hub.boardCount == 1)
    }

    @Test func theBoardLimitHolds() {
        let h = HubHarness { $0.limits.maxBoards = 1 }
        h.autoCommit = true
        h.feed(.http(HubRequest(id: 1, method: "PUT", path: "/api/boards/second", body: Array(#"{"mode":"multi","sections":[]}"#.utf8))))
        #expect(h.responses[1]?.status == 422)
    }
}
