import FoldTestSupport
import FoldCore
import Testing
@testable import FoldHub

/// Keyed actions through the hub: a repeat of an accepted key is answered
/// with the first answer and never applied again; the key is written with
/// the change, in the same batch.
@Suite struct ActionKeyTests {
    static let toggle = #""section":"s1","key":"c1-1""#

    func opened() -> HubHarness {
        let h = HubHarness()
        h.open(1)
        h.subscribe(1)
        _ = h.read(1)
        return h
    }

    func toggles(_ h: HubHarness) -> Int { h.store.changes.filter { $0.board == "default" }.count }

    @Test func theKeyIsWrittenInTheBatchOfItsChange() {
        let h = opened()
        h.act(1, .toggle, Self.toggle, tag: "a")
        #expect(h.commits.count == 1)
        #expect(h.commits[0].keys.map(\.key) == ["c1-1"] && h.commits[0].keys.map(\.rev) == [1])
        #expect(h.commits[0].changes.map(\.rev) == [1])
        h.finishCommits()
        #expect(h.store.keys.map(\.key) == ["c1-1"])
        #expect(h.read(1).map(\.type) == ["patch", "ack"])
    }

    @Test func aRepeatAfterTheCommitGetsTheFirstAnswerAndChangesNothing() {
        let h = opened()
        h.act(1, .toggle, Self.toggle, tag: "a")
        h.finishCommits()
        _ = h.read(1)
        h.open(2)
        h.act(2, .toggle, Self.toggle, tag: "again")
        h.finishCommits()
        let ack = h.read(2)
        #expect(ack.map(\.type) == ["ack"])
        #expect(ack.first?.rev == 1 && ack.first?["duplicate"]?.boolValue == true && ack.first?["id"]?.stringValue == "again")
        #expect(toggles(h) == 1 && h.hub.boards["default"]?.committedRev == 1)
        #expect(h.read(1).isEmpty, "no patch for a repeat")
        #expect(h.hub.metrics.duplicateActions == 1)
    }

    @Test func aRepeatWhileTheFirstIsBeingCommittedWaitsForItsAnswer() {
        let h = opened()
        h.act(1, .toggle, Self.toggle, tag: "a")
        h.act(1, .toggle, Self.toggle, tag: "b")
        #expect(h.read(1).isEmpty, "nothing answered before the commit")
        h.finishCommits()
        let out = h.read(1)
        #expect(out.map(\.type) == ["patch", "ack", "ack"])
        #expect(out[1].rev == 1 && out[1]["duplicate"] == nil)
        #expect(out[2].rev == 1 && out[2]["duplicate"]?.boolValue == true)
        #expect(toggles(h) == 1)
    }

    @Test func aKeyWithAnotherActionIsRefusedAndTheBoardIsUntouched() {
        let h = opened()
        h.act(1, .toggle, Self.toggle, tag: "a")
        h.finishCommits()
        _ = h.read(1)
        h.act(1, .toggle, #""section":"s2","key":"c1-1""#, tag: "other")
        h.finishCommits()
        let out = h.read(1)
        #expect(out.map(\.code) == ["conflict"] && out.first?["message"]?.stringValue?.contains("another action") == true)
        #expect(toggles(h) == 1)
        // Over HTTP the same refusal is 422.
        h.feed(.http(HubRequest(id: 9, method: "POST", path: "/api/boards/default/actions", headers: ["idempotency-key": "c1-1"],
                                body: Array(#"{"type":"collapseAll"}"#.utf8))))
        #expect(h.responses[9]?.status == 422)
    }

    @Test func aRefusedActionDoesNotSpendItsKey() {
        let h = opened()
        h.act(1, .toggle, #""section":"s9","key":"k""#, tag: "missing")
        #expect(h.read(1).map(\.code) == ["not_found"])
        h.act(1, .addSection, #""section":{"id":"s9","title":"new"},"key":"k2""#, tag: "add")
        h.finishCommits()
        _ = h.read(1)
        h.act(1, .toggle, #""section":"s9","key":"k""#, tag: "now")
        h.finishCommits()
        let out = h.read(1)
        #expect(out.map(\.type) == ["patch", "ack"] && out[1].rev == 2 && out[1]["duplicate"] == nil)
    }

    @Test func aKeyedNoOpIsRememberedToo() {
        let h = opened()
        h.act(1, .collapse, #""section":"s1","key":"n1""#, tag: "noop")
        #expect(h.commits.count == 1 && h.commits[0].keys.map(\.key) == ["n1"] && h.commits[0].changes.isEmpty)
        h.finishCommits()
        #expect(h.read(1).first?.rev == 0)
        h.act(1, .collapse, #""section":"s1","key":"n1""#, tag: "again")
        h.finishCommits()
        #expect(h.read(1).first?["duplicate"]?.boolValue == true)
        #expect(h.store.keys.map(\.key) == ["n1"])
    }

    @Test func keysPastTheBoundAreForgottenInTheStoreToo() {
        let h = HubHarness { $0.retention.actionKeysPerBoard = 16 }
        h.autoCommit = true
        h.open(1)
        for i in 1...20 { h.act(1, .toggle, #""section":"s1","key":"k\#(i)""#) }
        // The last batch carries what the one before it forgot; one more write carries the rest.
        h.act(1, .toggle, #""section":"s1","key":"k21""#)
        #expect(h.hub.boards["default"]?.keys.count == 16)
        #expect(h.store.keys.count <= 17 && !h.store.keys.contains { $0.key == "k1" })
        _ = h.read(1)
        // A forgotten key is a new action again.
        h.act(1, .toggle, #""section":"s1","key":"k1""#, tag: "old")
        #expect(h.read(1).last?["duplicate"] == nil)
    }

    @Test func httpTakesTheIdempotencyKeyHeader() {
        let h = HubHarness()
        h.autoCommit = true
        func post(_ id: UInt64, _ key: String, _ body: String = #"{"type":"toggle","section":"s0"}"#) -> HubResponse? {
            h.feed(.http(HubRequest(id: id, method: "POST", path: "/api/boards/default/actions", headers: ["idempotency-key": key], body: Array(body.utf8))))
            return h.responses[id]
        }
        let first = post(1, "h-1")
        let again = post(2, "h-1")
        #expect(first?.status == 200 && String(decoding: first?.body ?? [], as: UTF8.self) == #"{"rev":1}"#)
        #expect(again?.status == 200 && String(decoding: again?.body ?? [], as: UTF8.self) == #"{"rev":1,"duplicate":true}"#)
        #expect(again?.headers.contains { $0.0 == "idempotent-replayed" } == true)
        #expect(h.hub.boards["default"]?.committedRev == 1)
        #expect(post(3, "h-1", #"{"type":"toggle","section":"s2"}"#)?.status == 422)
        #expect(post(4, String(repeating: "x", count: 65))?.status == 400)
        #expect(post(5, "tab\there")?.status == 400)
        #expect(post(6, "h-2", #"{"type":"toggle","section":"s0","key":"other"}"#)?.status == 400)
        #expect(h.hub.boards["default"]?.committedRev == 1)
    }
}

/// `settle`: the way a client learns the fate of an action whose answer it
/// lost, and makes sure an unapplied one stays unapplied.
@Suite struct SettleTests {
    @Test func aSettledAcceptedKeyGetsItsFirstAnswer() {
        let h = HubHarness()
        h.autoCommit = true
        h.open(1)
        h.act(1, .toggle, #""section":"s1","key":"k""#, tag: "a")
        _ = h.read(1)
        h.send(1, #"{"type":"settle","board":"default","key":"k","id":"s"}"#)
        let out = h.read(1)
        #expect(out.map(\.type) == ["ack"] && out[0].rev == 1 && out[0]["duplicate"]?.boolValue == true && out[0]["id"]?.stringValue == "s")
    }

    @Test func aSettledUnusedKeyIsVoidForGood() {
        let h = HubHarness()
        h.open(1)
        h.send(1, #"{"type":"settle","board":"default","key":"late","id":"s"}"#)
        #expect(h.commits.count == 1 && h.commits[0].keys.map(\.rev) == [-1], "the void key is written before the answer")
        #expect(h.read(1).isEmpty)
        h.finishCommits()
        #expect(h.read(1).map(\.code) == ["expired"])
        #expect(h.store.keys.map(\.key) == ["late"])
        // The action it stood for, arriving late, is refused; so is a second settle.
        h.act(1, .toggle, #""section":"s1","key":"late""#, tag: "a")
        h.send(1, #"{"type":"settle","board":"default","key":"late","id":"s2"}"#)
        h.finishCommits()
        #expect(h.read(1).map(\.code) == ["expired", "expired"])
        #expect(h.hub.boards["default"]?.committedRev == 0)
        h.feed(.http(HubRequest(id: 5, method: "POST", path: "/api/boards/default/settle", body: Array(#"{"key":"late"}"#.utf8))))
        h.finishCommits()
        #expect(h.responses[5]?.status == 410)
    }

    @Test func badSettlesAreBadRequests() {
        let h = HubHarness()
        h.open(1)
        h.send(1, #"{"type":"settle","board":"default","id":"s"}"#)
        h.send(1, #"{"type":"settle","board":"default","key":"","id":"s"}"#)
        #expect(h.read(1).map(\.code) == ["bad_request", "bad_request"])
        #expect(h.commits.isEmpty)
    }
}

/// `KeptKeys` alone: bounded, oldest forgotten first.
@Suite struct KeptKeysTests {
    @Test func forgetsTheOldestPastTheCap() {
        var k = KeptKeys()
        var forgotten: [(key: PackedKey, rev: Int)] = []
        for i in 0..<200 { forgotten += k.remember("k\(i)", .init(rev: i, fingerprint: 7), cap: 50) }
        #expect(k.count == 50)
        #expect(forgotten.map(\.key.string) == (0..<150).map { "k\($0)" } && forgotten.map(\.rev) == Array(0..<150))
        #expect(k.find("k149") == nil && k.find("k150")?.rev == 150)
        #expect(k.remember("k199", .init(rev: 1, fingerprint: 1), cap: 50).isEmpty)
        #expect(k.find("k199")?.rev == 199, "a key keeps its first answer")
    }

    /// At its bound the ring takes the oldest's place: a long run at one
    /// cap, then a lower and a higher one, keeps exactly the newest keys.
    @Test func theRingWrapsAndFollowsACapLoweredAndRaised() {
        var k = KeptKeys()
        var forgotten: [String] = []
        for i in 0..<1_000 { forgotten += k.remember("r\(i)", .init(rev: i, fingerprint: 0), cap: 100).map(\.key.string) }
        #expect(forgotten == (0..<900).map { "r\($0)" } && k.count == 100)
        forgotten = k.remember("low", .init(rev: 1_000, fingerprint: 0), cap: 10).map(\.key.string)
        #expect(forgotten == (900..<991).map { "r\($0)" } && k.count == 10)
        for i in 1_001..<1_300 { #expect(k.remember("r\(i)", .init(rev: i, fingerprint: 0), cap: 500).isEmpty) }
        #expect(k.count == 309 && k.find("r991")?.rev == 991 && k.find("low")?.rev == 1_000 && k.find("r1299")?.rev == 1_299)
    }

    /// Keys of every length, 1 to 64 bytes, are told apart by their bytes:
    /// a key and each of its prefixes are kept side by side and forgotten whole.
    @Test func keysOfEveryLengthAreKeptAndForgottenWhole() {
        var k = KeptKeys()
        let full = String(repeating: "abcdefgh", count: 8)
        for n in 1...64 { #expect(k.remember(String(full.prefix(n)), .init(rev: n, fingerprint: Int64(-n)), cap: 64).isEmpty) }
        #expect((1...64).allSatisfy { k.find(String(full.prefix($0))) == .init(rev: $0, fingerprint: Int64(-$0)) })
        #expect(k.find(full.dropLast() + "x") == nil && k.find("b") == nil)
        let forgotten = k.remember("new", .init(rev: 65, fingerprint: 0), cap: 64)
        #expect(forgotten.map(\.key.string) == ["a"] && forgotten.map(\.rev) == [1])
        #expect(k.find("a") == nil && k.find("ab")?.rev == 2 && k.find(full)?.rev == 64)
    }

    /// Thousands of keys through a small cap, in bursts: the order's
    /// compaction and the table's growth keep every kept key findable and
    /// forget exactly the oldest.
    @Test func aLongRunForgetsExactlyTheOldest() {
        var k = KeptKeys()
        var forgotten: [String] = []
        for i in 0..<5_000 {
            let cap = i < 2_500 ? 300 : 100
            forgotten += k.remember("run-\(i)", .init(rev: i, fingerprint: Int64(i)), cap: cap).map(\.key.string)
        }
        #expect(k.count == 100)
        #expect(forgotten == (0..<4_900).map { "run-\($0)" })
        #expect((4_900..<5_000).allSatisfy { k.find("run-\($0)")?.fingerprint == Int64($0) })
        #expect(k.find("run-4899") == nil)
    }

    /// Against a model, input by input: keys repeated, caps that shrink and
    /// grow, so the table grows, probe runs wrap, slots move back on each
    /// removal, and the order is compacted; what is kept and what is
    /// forgotten, oldest first, always agree.
    @Test(arguments: 0..<6)
    func randomRemembersAgreeWithAModel(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        var k = KeptKeys()
        var order: [String] = []
        var model: [String: KeptKeys.Kept] = [:]
        let space = seed % 2 == 0 ? 200 : 5_000
        for step in 0..<6_000 {
            let key = "k\(Int.random(in: 0..<space, using: &rng))"
            let cap = [1, 40, 300, 2_000][Int.random(in: 0..<4, using: &rng)]
            let answer = KeptKeys.Kept(rev: step, fingerprint: Int64(bitPattern: rng.next()))
            var expected: [String] = []
            if model[key] == nil {
                model[key] = answer
                order.append(key)
                while order.count > cap {
                    expected.append(order.removeFirst())
                    model[expected.last!] = nil
                }
            }
            let forgotten = k.remember(key, answer, cap: cap).map(\.key.string)
            #expect(forgotten == expected, "step \(step)")
            let probe = "k\(Int.random(in: 0..<space, using: &rng))"
            #expect(k.find(probe) == model[probe], "step \(step): \(probe)")
            #expect(k.count == model.count)
        }
        #expect(order.allSatisfy { k.find($0) == model[$0] })
    }
}
