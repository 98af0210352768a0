import FoldCore
import Testing
@testable import FoldHub

/// A subscriber that names where it stood gets the patches it missed when
/// they are all kept, else a snapshot.
@Suite struct ResumeTests {
    /// Three committed toggles on the default board.
    func harness(history: Int = 1_000) -> HubHarness {
        let h = HubHarness { $0.retention.historyPerBoard = history }
        h.autoCommit = true
        h.open(1)
        for _ in 0..<3 { h.act(1, .toggle, #""section":"s1""#) }
        return h
    }

    @Test func resumeFromHistorySendsOnlyWhatWasMissed() {
        let h = harness()
        h.open(2)
        h.subscribe(2, since: Position(epoch: "e0", rev: 1))
        let got = h.read(2)
        #expect(got.map(\.type) == ["patch", "patch"] && got.map(\.rev) == [2, 3])
        #expect(h.hub.metrics.resumes == 1)
    }

    @Test func upToDateGetsNothing() {
        let h = harness()
        h.open(2)
        h.subscribe(2, since: Position(epoch: "e0", rev: 3))
        #expect(h.read(2).isEmpty)
    }

    @Test func aGapBeyondTheHistoryOrAnotherEpochGetsASnapshot() {
        let h = harness(history: 1)
        h.open(2)
        h.subscribe(2, since: Position(epoch: "e0", rev: 1))
        let got = h.read(2)
        #expect(got.map(\.type) == ["snapshot"] && got[0].rev == 3)

        h.open(3)
        h.subscribe(3, since: Position(epoch: "other", rev: 3))
        #expect(h.read(3).map(\.type) == ["snapshot"])
        #expect(h.hub.metrics.resumes == 0)
    }

    @Test func historyReadFromTheStoreResumesAfterARestart() {
        let changes = (1...2).map { StoredChange(board: "b", rev: $0, ops: Array("[]".utf8)) }
        let b = BoardState(name: "b", epoch: "e", rev: 2, board: .initial, changes: changes, history: 10)
        #expect(b.patches(after: Position(epoch: "e", rev: 0))?.count == 2)
        // A hole in the log: only a run ending at the board's rev can be replayed.
        let holed = BoardState(name: "b", epoch: "e", rev: 3, board: .initial, changes: changes, history: 10)
        #expect(holed.patches(after: Position(epoch: "e", rev: 0)) == nil)
    }
}
