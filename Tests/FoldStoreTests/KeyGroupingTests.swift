import FoldCore
import Testing
@testable import FoldStore

/// A commit's keys filed by board: boards in the order of their first key,
/// each board's keys in their order, whatever the boards' names and number.
@Suite struct KeyGroupingTests {
    func file(_ boards: [String], into grouping: inout KeyGrouping) -> [[Int]] {
        let keys = boards.enumerated().map { StoredKey(board: $1, key: "k\($0)", rev: $0, fingerprint: 0) }
        let groups = keys.withUnsafeBufferPointer { grouping.file($0) }
        return (0..<groups).map { Array(grouping.run($0)) }
    }

    @Test func interleavedBoardsAreFiledStably() {
        var g = KeyGrouping()
        #expect(file(["a", "b", "a", "c", "b", "a"], into: &g) == [[0, 2, 5], [1, 4], [3]])
        // Kept between commits: the next commit's keys alone.
        #expect(file(["c", "c"], into: &g) == [[0, 1]])
        #expect(file([], into: &g) == [])
    }

    /// The table keeps its size from commit to commit and is emptied of
    /// the names it filed: the same names in another order are new groups.
    @Test func aTableKeptAtItsSizeForgetsTheLastCommitsNames() {
        var g = KeyGrouping()
        #expect(file(["a", "b", "c", "a"], into: &g) == [[0, 3], [1], [2]])
        #expect(file(["c", "b", "a", "b"], into: &g) == [[0], [1, 3], [2]])
        #expect(file(["x", "y", "x", "z"], into: &g) == [[0, 2], [1], [3]])
        #expect(file(["a", "a", "a", "a"], into: &g) == [[0, 1, 2, 3]])
    }

    /// Many boards (the table laid out for more than its first size), long
    /// names, and names that differ only in their last digits.
    @Test func manyBoardsEachGetTheirOwnGroup() {
        var g = KeyGrouping()
        let names = (0..<300).map { $0 % 3 == 0 ? "board-\($0)" : String(repeating: "n", count: 40) + "\($0)" }
        var boards: [String] = []
        for _ in 0..<3 { boards += names }
        let runs = file(boards, into: &g)
        #expect(runs.count == 300)
        #expect(runs.enumerated().allSatisfy { i, run in run == [i, i + 300, i + 600] })
    }
}
