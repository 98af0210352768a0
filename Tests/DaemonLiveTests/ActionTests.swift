import FoldCore
import FoldTestSupport
import Testing

/// Every action type over WebSocket, and the refusals that name a rule:
/// `conflict` for `ifRev`, `not_found` for a missing section or board.
@Suite struct ActionTests {
    @Test func editActionsChangeTheBoardAsSeenBySubscribers() throws {
        let d = try DaemonProcess()
        defer { d.shutdown() }
        let editor = try d.connect(), watcher = try d.connect()
        let snap = try watcher.subscribe()
        var state = try #require(snap["state"])
        var rev = try #require(snap.rev)
        func run(_ type: ActionName, _ fields: String) throws -> JSON {
            let answer = try editor.answer(Wire.action(type, id: "\(type)\(rev)", fields), id: "\(type)\(rev)")
            try #require(answer.type == "ack", "\(type): \(answer)")
            let patch = try watcher.waitFor(type: "patch")
            #expect(patch.rev == rev + 1)
            #expect(answer.rev == rev + 1)
            state = try JSONPatch.apply(try #require(patch["ops"]), to: state)
            rev += 1
            return patch
        }

        _ = try run(.addSection, #""section":{"id":"named","title":"Named","items":["a"],"expanded":false}"#)
        #expect(state.sectionIDs == ["s0", "s1", "s2", "named"])

        _ = try run(.addSection, #""section":{"title":"Generated"},"at":0"#)
        let generated = try #require(state.sectionIDs.first)
        #expect(!["s0", "s1", "s2", "named"].contains(generated))
        #expect(generated.count >= 1 && generated.count <= 64)
        #expect(generated.allSatisfy { $0.isLetter || $0.isNumber || "_.-".contains($0) })
        #expect(state.section(generated)?["title"]?.stringValue == "Generated")
        #expect(state.section(generated)?["items"]?.arrayValue?.isEmpty == true)
        #expect(state.section(generated)?["expanded"]?.boolValue == false)

        _ = try run(.moveSection, #""section":"named","to":1"#)
        #expect(state.sectionIDs == [generated, "named", "s0", "s1", "s2"])

        _ = try run(.setTitle, #""section":"named","title":"分组 ✓ \"q\"""#)
        #expect(state.section("named")?["title"]?.stringValue == "分组 ✓ \"q\"")

        _ = try run(.setItems, #""section":"named","items":["x",{"label":"y","extra":{"n":[1,2]}}]"#)
        #expect(state.section("named")?["items"]?.arrayValue?.count == 2)

        _ = try run(.removeSection, #""section":"s1""#)
        #expect(state.sectionIDs == [generated, "named", "s0", "s2"])

        _ = try run(.replace, #""state":{"mode":"multi","sections":[{"id":"only","title":"T","items":[],"expanded":true}]}"#)
        #expect(state.sectionIDs == ["only"])
        #expect(state["mode"]?.stringValue == "multi")

        let got = try d.http("GET", "/api/boards/default").json()
        #expect(got["state"] == state)
        #expect(got.rev == rev)
    }

    @Test func replaceCreatesABoardThatDidNotExist() throws {
        let d = try DaemonProcess()
        defer { d.shutdown() }
        let c = try d.connect()
        let missing = try c.answer(Wire.subscribe("fresh.board-1") , id: "")
        #expect(missing.code == "not_found")
        let doc = #"{"mode":"multi","sections":[{"id":"a","title":"A","items":["1"],"expanded":true}]}"#
        let answer = try c.answer(Wire.action(.replace, board: "fresh.board-1", id: "mk", #""state":\#(doc)"#), id: "mk")
        #expect(answer.type == "ack")
        #expect(answer["board"]?.stringValue == "fresh.board-1")
        let snap = try c.subscribe("fresh.board-1")
        #expect(snap["state"] == (try JSONParser.parse(doc)))
        #expect(snap.rev == answer.rev)
        let list = try d.http("GET", "/api/boards").json()
        let names = list["boards"]?.arrayValue?.compactMap { $0["board"]?.stringValue } ?? []
        #expect(Set(names) == ["default", "fresh.board-1"])
    }

    @Test func ifRevConflictsUnlessItMatches() throws {
        let d = try DaemonProcess()
        defer { d.shutdown() }
        let c = try d.connect()
        let rev = try #require(try c.subscribe().rev)
        let stale = try c.perform(Wire.action(.toggle, id: "old", #""section":"s0","ifRev":\#(rev + 7)"#), id: "old")
        #expect(stale.map(\.type) == ["error"])
        #expect(stale.last?.code == "conflict")
        #expect(stale.last?["id"]?.stringValue == "old")
        #expect(stale.last?["board"]?.stringValue == "default")
        let fresh = try c.perform(Wire.action(.toggle, id: "cur", #""section":"s0","ifRev":\#(rev)"#), id: "cur")
        #expect(fresh.map(\.type) == ["patch", "ack"])
        #expect(fresh.last?.rev == rev + 1)
    }

    @Test func missingSectionOrBoardIsNotFound() throws {
        let d = try DaemonProcess()
        defer { d.shutdown() }
        let c = try d.connect()
        try c.subscribe()
        for type: ActionName in [.toggle, .expand, .collapse, .removeSection] {
            let e = try c.answer(Wire.action(type, id: type.rawValue, #""section":"nope""#), id: type.rawValue)
            #expect(e.code == "not_found", "\(type)")
        }
        var e = try c.answer(Wire.action(.moveSection, id: "m", #""section":"nope","to":0"#), id: "m")
        #expect(e.code == "not_found")
        e = try c.answer(Wire.action(.setTitle, id: "t", #""section":"nope","title":"x""#), id: "t")
        #expect(e.code == "not_found")
        e = try c.answer(Wire.action(.toggle, board: "no-such-board", id: "b", #""section":"s0""#), id: "b")
        #expect(e.code == "not_found")
        e = try c.answer(Wire.action(.addSection, id: "dup", #""section":{"id":"s0","title":"again"}"#), id: "dup")
        #expect(e.code == "invalid", "a duplicate section id breaks a rule")
        e = try c.answer(Wire.action(.moveSection, id: "far", #""section":"s0","to":99"#), id: "far")
        #expect(e.code == "invalid")
        // Nothing changed.
        let got = try d.http("GET", "/api/boards/default").json()
        #expect(got["state"] == Wire.defaultState)
        #expect(got.rev == 0)
    }
}
