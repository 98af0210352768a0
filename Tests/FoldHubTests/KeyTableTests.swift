import FoldTestSupport
import Testing
@testable import FoldHub
import FoldCore

/// `KeyTable` against a dictionary, input by input: random inserts,
/// removals and look-ups of (key, board) values, filed by hashes from a
/// small range (so distinct keys share a hash, probe runs collide and wrap,
/// and only the values tell them apart).
@Suite struct KeyTableTests {
    struct Entry: Equatable {
        let key: Int
        let board: Int
        let n: Int
    }

    struct Pair: Hashable {
        let key: Int
        let board: Int
    }

    @Test(arguments: 0..<20)
    func randomOperationsAgreeWithADictionary(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        var table = KeyTable<Entry>()
        var model: [Pair: Int] = [:]
        let keys = seed % 2 == 0 ? 40 : 400
        // A hash shared by about five keys, in a run a few slots long.
        func hash(_ key: Int) -> UInt64 { UInt64(key / 5) &* 0x9e37_79b9 }
        for step in 0..<4_000 {
            let key = Int.random(in: 0..<keys, using: &rng)
            let board = Int.random(in: 0..<2, using: &rng)
            let pair = Pair(key: key, board: board)
            let same: (Entry) -> Bool = { $0.key == key && $0.board == board }
            switch Int.random(in: 0..<3, using: &rng) {
            case 0:
                let present = table.insert(hash(key), Entry(key: key, board: board, n: step), unless: same)
                #expect(present?.n == model[pair], "step \(step): insert found \(String(describing: present))")
                if model[pair] == nil { model[pair] = step }
            case 1:
                let gone = table.remove(hash(key), where: same)
                #expect(gone?.n == model.removeValue(forKey: pair), "step \(step): remove")
            default:
                #expect(table.find(hash(key), where: same)?.n == model[pair], "step \(step): find")
            }
            #expect(table.count == model.count)
        }
        for (pair, n) in model {
            #expect(table.find(hash(pair.key)) { $0.key == pair.key && $0.board == pair.board }?.n == n)
        }
        table.removeAll()
        #expect(table.count == 0 && table.find(hash(0)) { _ in true } == nil)
    }
}

/// `PackedKey`: a key inline, equal exactly when its bytes are.
@Suite struct PackedKeyTests {
    @Test func aKeyOfEveryLengthRoundTripsAndEqualsOnlyItself() {
        var keys: [String] = []
        for n in 1...64 {
            let bytes: [UInt8] = (0..<n).map { i in UInt8(0x21 + (i * 7 + n) % 94) }
            keys.append(String(decoding: bytes, as: UTF8.self))
        }
        let packed: [PackedKey] = keys.map { PackedKey($0) }
        #expect(packed.map { $0.string } == keys)
        #expect(packed.map { Int($0.count) } == Array(1...64))
        #expect(Set(packed).count == 64 && Set(packed.map { $0.hash }).count == 64)
        #expect(PackedKey("abc") == PackedKey("abc") && PackedKey("abc") != PackedKey("abd") && PackedKey("ab") != PackedKey("ab "))
    }

    @Test func theLowBitsOfTheHashSpreadKeysThatDifferInTheirLastByte() {
        // A table indexes by the low bits: 1,024 counter keys over 2,048 slots.
        let slots = Set((0..<1_024).map { Int(truncatingIfNeeded: PackedKey("client-7f3a9c-\($0)").hash) & 2_047 })
        #expect(slots.count > 700, "\(slots.count) distinct slots of 1,024 keys")
    }
}
