import FoldTestSupport
import Testing
@testable import FoldHub

/// `Subscriptions` against a set of (connection, board) pairs, input by
/// input: both directions agree after every insert, removal and close,
/// whether a connection watches one board or several.
@Suite struct SubscriptionsTests {
    struct Pair: Hashable {
        let id: UInt64
        let board: String
    }

    @Test(arguments: 0..<8)
    func randomChangesAgreeWithAModel(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        var subs = Subscriptions()
        var model: Set<Pair> = []
        let boards = ["a", "b", "c", "d"]
        for step in 0..<3_000 {
            let id = UInt64.random(in: 0..<12, using: &rng)
            let board = boards[Int.random(in: 0..<boards.count, using: &rng)]
            switch Int.random(in: 0..<10, using: &rng) {
            case 0..<5:
                subs.insert(id, board)
                model.insert(Pair(id: id, board: board))
            case 5..<9:
                subs.remove(id, board)
                model.remove(Pair(id: id, board: board))
            default:
                let gone = subs.removeAll(id)
                #expect(gone == Set(model.filter { $0.id == id }.map(\.board)), "step \(step): close")
                model = model.filter { $0.id != id }
            }
            #expect(subs.boards(of: id) == Set(model.filter { $0.id == id }.map(\.board)), "step \(step)")
            #expect(subs.count(of: id) == model.filter { $0.id == id }.count)
            #expect(subs.contains(id, board) == model.contains(Pair(id: id, board: board)))
            #expect(subs.watchers(of: board) == Set(model.filter { $0.board == board }.map(\.id)))
            #expect(subs.count == model.count)
        }
        for board in boards {
            var s = subs
            #expect(Set(s.fanOutList(of: board)) == Set(model.filter { $0.board == board }.map(\.id)))
        }
    }
}
