import FoldTestSupport
import Testing
@testable import FoldHub

/// `KeyTable` against a dictionary, input by input: random inserts,
/// replacements, removals and look-ups over few keys (so probe runs collide
/// and wrap) and two boards per key (one key standing twice).
@Suite struct KeyTableTests {
    struct Entry: Equatable {
        let board: Int
        let n: Int
    }

    struct Pair: Hashable {
        let key: String
        let board: Int
    }

    @Test(arguments: 0..<20)
    func randomOperationsAgreeWithADictionary(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        var table = KeyTable<Entry>()
        var model: [Pair: Int] = [:]
        let keys = (0..<(seed % 2 == 0 ? 40 : 400)).map { HashedKey("k\($0)") }
        for step in 0..<4_000 {
            let key = keys[Int.random(in: 0..<keys.count, using: &rng)]
            let board = Int.random(in: 0..<2, using: &rng)
            let pair = Pair(key: key.key, board: board)
            switch Int.random(in: 0..<3, using: &rng) {
            case 0:
                let old = table.insert(key, Entry(board: board, n: step)) { $0.board == board }
                #expect(old?.n == model[pair], "step \(step): insert replaced \(String(describing: old))")
                model[pair] = step
            case 1:
                let gone = table.remove(key) { $0.board == board }
                #expect(gone?.n == model.removeValue(forKey: pair), "step \(step): remove")
            default:
                #expect(table.find(key) { $0.board == board }?.n == model[pair], "step \(step): find")
            }
            #expect(table.count == model.count)
        }
        for (pair, n) in model {
            #expect(table.find(HashedKey(pair.key)) { $0.board == pair.board }?.n == n)
        }
        table.removeAll()
        #expect(table.count == 0 && table.find(keys[0]) == nil)
    }

    @Test func aKeyIsFoundByItsBytesNotItsHashAlone() {
        var table = KeyTable<Int>()
        table.insert(HashedKey("a"), 1)
        #expect(table.find(HashedKey("a")) == 1)
        #expect(table.find(HashedKey("b")) == nil)
        #expect(table.find(HashedKey("a")) { $0 == 2 } == nil, "the predicate tells two values of one key apart")
    }

    @Test func theHashIsFNV1aOfTheKeysBytes() {
        // FNV-1a 64 of the empty string and of "a" (published test values).
        #expect(HashedKey("").hash == 0xcbf2_9ce4_8422_2325)
        #expect(HashedKey("a").hash == 0xaf63_dc4c_8601_ec8c)
    }
}
