import Testing
@testable import FoldCore

/// The shared focus (an extension): setting it, clearing it, and how every
/// edit keeps it pointing at an item.
@Suite struct FocusActionTests {
    func code(_ action: Action, on board: Board = .initial) -> ErrorCode? {
        errorCode { () throws(FoldError) in _ = try board.applying(action, limits: .defaults) }
    }

    func focused(_ board: Board, _ section: String, _ item: Int) throws -> Board {
        try #require(try apply(.focus(section: section, item: item), to: board)).board
    }

    /// Applies the change's ops to `board` and checks they give its board.
    func checkPatch(_ change: Change, from board: Board) throws {
        #expect(try JSONPatch.apply(change.ops, to: board.json) == change.board.json)
    }

    @Test func focusExpandsItsSectionInTheSameRevWithTheAccordion() throws {
        let open = try #require(try apply(.expand(section: "s0"), to: .initial)).board
        let change = try #require(try apply(.focus(section: "s2", item: 1), to: open))
        #expect(change.ops == [
            .replace(path: "/sections/0/expanded", value: .bool(false)),
            .replace(path: "/sections/2/expanded", value: .bool(true)),
            .add(path: "/focus", value: .object(JSONObject([("section", .string("s2")), ("item", .int(1))]))),
        ])
        #expect(change.board.focus == Focus(section: "s2", item: 1))
        #expect(expanded(change.board) == ["s2"])
        try checkPatch(change, from: open)
        // Another item of the open section: only the focus moves.
        let next = try #require(try apply(.focus(section: "s2", item: 0), to: change.board))
        #expect(next.ops == [.replace(path: "/focus", value: Focus(section: "s2", item: 0).json)])
        // The same item again is a no-op; after a collapse it expands again.
        #expect(try apply(.focus(section: "s2", item: 0), to: next.board) == nil)
        let closed = try #require(try apply(.collapse(section: "s2"), to: next.board)).board
        #expect(closed.focus == Focus(section: "s2", item: 0))
        let again = try #require(try apply(.focus(section: "s2", item: 0), to: closed))
        #expect(again.ops == [.replace(path: "/sections/2/expanded", value: .bool(true))])
    }

    @Test func multiModeLeavesOtherSectionsOpen() throws {
        var multi = Board.initial
        multi.mode = .multi
        multi.sections[0].expanded = true
        let change = try #require(try apply(.focus(section: "s1", item: 0), to: multi))
        #expect(expanded(change.board) == ["s0", "s1"])
    }

    @Test func focusRules() {
        #expect(code(.focus(section: "nope", item: 0)) == .notFound)
        #expect(code(.focus(section: "s0", item: 2)) == .invalid)
        #expect(code(.focus(section: "s0", item: -1)) == .invalid)
        let empty = Board(mode: .single, sections: [Section(id: "e", title: "E")])
        #expect(code(.focus(section: "e", item: 0), on: empty) == .invalid)
        #expect(ActionName.focus.permission == .fold && ActionName.clearFocus.permission == .fold)
    }

    @Test func clearFocus() throws {
        #expect(try apply(.clearFocus, to: .initial) == nil)
        let board = try focused(.initial, "s1", 1)
        let change = try #require(try apply(.clearFocus, to: board))
        #expect(change.ops == [.remove(path: "/focus")])
        #expect(change.board.focus == nil)
        #expect(expanded(change.board) == ["s1"])
    }

    @Test func removingTheSectionClearsTheFocusInTheSamePatch() throws {
        let board = try focused(.initial, "s1", 1)
        let change = try #require(try apply(.removeSection(section: "s1"), to: board))
        #expect(change.ops == [.remove(path: "/sections/1"), .remove(path: "/focus")])
        try checkPatch(change, from: board)
        // Another section: the focus stays, by id, though its index moved.
        let other = try #require(try apply(.removeSection(section: "s0"), to: board))
        #expect(other.board.focus == Focus(section: "s1", item: 1))
        #expect(other.ops == [.remove(path: "/sections/0")])
    }

    @Test func itemsThatNoLongerReachTheFocusClearIt() throws {
        let board = try focused(.initial, "s2", 1)
        let shorter = try #require(try apply(.setItems(section: "s2", items: [.string("only")]), to: board))
        #expect(shorter.ops.last == .remove(path: "/focus"))
        #expect(shorter.board.focus == nil)
        try checkPatch(shorter, from: board)
        let reaching = try #require(try apply(.setItems(section: "s2", items: [.string("a"), .string("b"), .string("c")]), to: board))
        #expect(reaching.board.focus == Focus(section: "s2", item: 1))
        #expect(reaching.ops.count == 1)
    }

    @Test func aFocusedItemWithAnIdIsFollowed() throws {
        let items: [JSON] = [.string("a"), .object(["label": .string("B"), "id": .string("b")]), .string("c")]
        let board = try focused(try #require(try apply(.setItems(section: "s0", items: items), to: .initial)).board, "s0", 1)
        let reordered: [JSON] = [items[1], .string("new"), items[0]]
        let change = try #require(try apply(.setItems(section: "s0", items: reordered), to: board))
        #expect(change.board.focus == Focus(section: "s0", item: 0))
        #expect(change.ops.last == .replace(path: "/focus", value: Focus(section: "s0", item: 0).json))
        try checkPatch(change, from: board)
        // Gone: cleared, even though index 1 still exists (it is another item now).
        let gone = try #require(try apply(.setItems(section: "s0", items: [.string("x"), .string("y")]), to: board))
        #expect(gone.board.focus == nil)
        #expect(gone.ops.last == .remove(path: "/focus"))
    }

    @Test func otherEditsLeaveTheFocusAlone() throws {
        let board = try focused(.initial, "s2", 0)
        for action: Action in [.moveSection(section: "s2", to: 0), .setTitle(section: "s2", title: "t"),
                               .setMode(.multi), .collapseAll, .toggle(section: "s0"),
                               .addSection(SectionDraft(title: "n", expanded: true), at: 0)] {
            let change = try #require(try apply(action, to: board))
            #expect(change.board.focus == board.focus, "\(action)")
            let paths: [String] = change.ops.compactMap { (op: PatchOp) -> String? in op.json["path"]?.stringValue }
            #expect(!paths.contains("/focus"), "\(action)")
        }
    }

    @Test func replaceCarriesTheFocusAndRefusesOneThatPointsNowhere() throws {
        let board = try focused(.initial, "s0", 0)
        var next = board
        next.focus = Focus(section: "s1", item: 1)
        let change = try #require(try apply(.replace(next), to: board))
        #expect(change.ops == [.replace(path: "/focus", value: Focus(section: "s1", item: 1).json)])
        next.focus = nil
        #expect(try #require(try apply(.replace(next), to: board)).ops == [.remove(path: "/focus")])
        next.focus = Focus(section: "s1", item: 2)
        #expect(code(.replace(next), on: board) == .invalid)
        next.focus = Focus(section: "zz", item: 0)
        #expect(code(.replace(next), on: board) == .invalid)
        // A wholesale sections replace with a new focus: both in one patch.
        var other = Board(mode: .multi, sections: [Section(id: "x", title: "X", items: [.string("1")])])
        other.focus = Focus(section: "x", item: 0)
        let whole = try #require(try apply(.replace(other), to: board))
        try checkPatch(whole, from: board)
    }

    @Test func theDocumentCarriesTheFocusAfterTheSections() throws {
        let board = try focused(.initial, "s1", 0)
        let text = String(decoding: board.encoded(), as: UTF8.self)
        #expect(text.hasSuffix(#"],"focus":{"section":"s1","item":0}}"#))
        #expect(board.encodedByteCount() == board.encoded().count)
        #expect(try Board(json: parse(text), limits: .defaults) == board)
        // Without a focus the document is exactly what it always was.
        #expect(!String(decoding: Board.initial.encoded(), as: UTF8.self).contains("focus"))
        let bad = [#"{"mode":"single","sections":[],"focus":3}"#,
                   #"{"mode":"single","sections":[],"focus":{"section":1,"item":0}}"#,
                   #"{"mode":"single","sections":[],"focus":{"section":"a","item":"0"}}"#]
        for doc in bad {
            #expect(errorCode { () throws(FoldError) in _ = try Board(json: try! parse(doc), limits: .defaults) } == .badRequest, "\(doc)")
        }
        let nowhere = #"{"mode":"single","sections":[],"focus":{"section":"a","item":0}}"#
        #expect(errorCode { () throws(FoldError) in _ = try Board(json: try! parse(nowhere), limits: .defaults) } == .invalid)
        #expect(try Board(trusted: parse(nowhere)).focus == nil)
    }

    @Test func focusMessagesDecode() throws {
        let msg = try ClientMessage.decode(parse(#"{"type":"focus","board":"b","section":"s1","item":2,"id":"x"}"#), limits: .defaults).get()
        #expect(msg == .action(ActionRequest(id: "x", board: "b", action: .focus(section: "s1", item: 2))))
        #expect(try ClientMessage.decode(parse(#"{"type":"clearFocus","board":"b"}"#), limits: .defaults).get()
                == .action(ActionRequest(board: "b", action: .clearFocus)))
        for bad in [#"{"type":"focus","board":"b","section":"s1"}"#, #"{"type":"focus","board":"b","section":"s1","item":1.5}"#,
                    #"{"type":"focus","board":"b","item":0}"#, #"{"type":"view"}"#, #"{"type":"view","following":"yes"}"#] {
            guard case .failure(let e) = ClientMessage.decode(try parse(bad), limits: .defaults) else {
                Issue.record("decoded: \(bad)"); continue
            }
            #expect(e.code == .badRequest, "\(bad)")
        }
        #expect(try ClientMessage.decode(parse(#"{"type":"view","following":false}"#), limits: .defaults).get() == .view(following: false))
    }

    /// History (revert): a change's undo brings back a focus it cleared, and
    /// an undo that would leave the focus on a missing item drops it.
    @Test func undoingEditsKeepsTheFocusValid() throws {
        let board = try focused(.initial, "s1", 1)
        let removed = try #require(try apply(.removeSection(section: "s1"), to: board))
        let inverse = try board.inverse(of: removed.ops)
        #expect(try removed.board.patched(with: inverse) == board)
        guard case .applied(let undone?) = try removed.board.reverting(inverse, limits: .defaults) else {
            Issue.record("the undo was refused"); return
        }
        #expect(undone.board.focus == Focus(section: "s1", item: 1))
        let grow = try #require(try apply(.setItems(section: "s0", items: [.string("a"), .string("b"), .string("c")]), to: .initial))
        let later = try focused(grow.board, "s0", 2)
        let shrink = try Board.initial.inverse(of: grow.ops)
        guard case .applied(let back?) = try later.reverting(shrink, limits: .defaults) else {
            Issue.record("the undo was refused"); return
        }
        #expect(back.board.sections[0].items.count == 2 && back.board.focus == nil)
        #expect(back.ops.last == .remove(path: "/focus"))
        #expect(try JSONPatch.apply(back.ops, to: later.json) == back.board.json)
    }

    @Test func theHistoryNamesFocusChanges() throws {
        let change = try #require(try apply(.focus(section: "s1", item: 1), to: .initial))
        #expect(ChangeSummary.describe(.focus(section: "s1", item: 1), before: .initial, after: change.board) == "focus s1 item 1 '333'")
        #expect(ChangeSummary.describe(.clearFocus, before: change.board, after: .initial) == "clear the focus")
        #expect(String(decoding: ChangeSummary.record(.focus(section: "s1", item: 1)), as: UTF8.self)
                == #"{"type":"focus","section":"s1","item":1}"#)
    }
}
