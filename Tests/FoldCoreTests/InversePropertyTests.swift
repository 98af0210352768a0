import Testing
@testable import FoldCore

/// For any action on any board, applying its ops then its inverse ops gives
/// the board back, on the typed board and through generic RFC 6902 alike;
/// and an undo applied over a later change refuses instead of undoing the wrong thing.
@Suite struct InversePropertyTests {
    @Test(arguments: ActionPropertyTests.seeds)
    func opsThenInverseGiveTheBoardBack(seed: UInt64) throws {
        var rng = SplitMix64(seed: seed &+ 77)
        var boards: [Board] = [.initial, bigBoard(sections: 8, itemsPerSection: 2, mode: .multi), Board(mode: .single, sections: [])]
        var limits = Limits()
        limits.maxSections = 12
        limits.maxItems = 6
        limits.maxTitleBytes = 16
        var checked = 0, shortcuts = 0, compacts = 0
        let generator = ActionPropertyTests()
        for _ in 0..<800 {
            let b = Int.random(in: 0..<boards.count, using: &rng)
            let before = boards[b]
            let action = generator.randomAction(for: before, using: &rng)
            guard let change = try? before.applying(action, limits: limits) else { continue }
            let inverse = try before.inverse(of: change.ops)
            // The shortcut for field replacements gives exactly the general undo.
            if let fields = before.fieldInverse(of: change.ops) {
                #expect(fields == (try before.steppedInverse(of: change.ops)), "\(action)")
                shortcuts += 1
            }
            // The record's stored undo reads back as exactly this inverse, compact or not.
            let forward = PatchOp.encode(change.ops)
            if let compact = FieldUndo.encode(change.ops, before: before) {
                #expect(before.fieldInverse(of: change.ops) != nil, "compact where the shortcut is not: \(action)")
                // Written straight as bytes: exactly the JSON of what `replaced` reads.
                let r = try #require(FieldUndo.replaced(by: change.ops, in: before))
                #expect(compact == JSON.object(JSONObject([("ids", .array(r.ids.map(JSON.string))), ("old", .array(r.old))])).encoded())
                #expect(FieldUndo.inverse(stored: compact, forward: forward) == inverse, "\(action)")
                #expect(FieldUndo.inverseBytes(stored: compact, forward: forward) == PatchOp.encode(inverse))
                compacts += 1
            } else {
                #expect(before.fieldInverse(of: change.ops) == nil, "the shortcut applies but no compact undo: \(action)")
                #expect(FieldUndo.inverse(stored: PatchOp.encode(inverse), forward: forward) == inverse)
            }
            #expect(try change.board.patched(with: inverse) == before, "\(action)")
            // The same through the generic patch, and off the wire.
            #expect(try JSONPatch.apply(inverse, to: change.board.json) == before.json, "\(action)")
            let wire = try JSONParser.parse(PatchOp.encode(inverse))
            #expect(try JSONPatch.apply(wire, to: change.board.json) == before.json)
            // The typed patch agrees with the generic one going forward too.
            #expect(try before.patched(with: change.ops) == change.board)
            // Undone as a revert: the board comes back (the accordion holds, as before it did).
            #expect(try change.board.reverting(inverse, limits: limits) == .applied(Change(board: before, ops: inverse.filter { $0.name != "test" })),
                    "\(action)")
            checked += 1
            boards[b] = change.board
        }
        #expect(checked > 200)   // fewer since the focus actions joined (some are refused by design)
        #expect(shortcuts > 50, "the field shortcut was taken \(shortcuts) times")
        #expect(compacts == shortcuts)
    }

    /// The compact undo: about 30 bytes for a title; only the paths actions write; unreadable input gives no undo.
    @Test func aFieldUndoIsSmallAndReadsOnlyWhatActionsWrite() throws {
        let b = Board(mode: .multi, sections: [Section(id: "s0", title: "w0:499", items: [.string("a")])])
        let ops: [PatchOp] = [.replace(path: "/sections/0/title", value: .string("w0:500"))]
        let compact = try #require(FieldUndo.encode(ops, before: b))
        #expect(text(compact) == #"{"ids":["s0"],"old":["w0:499"]}"#)
        #expect(text(PatchOp.encode(try b.inverse(of: ops))).utf8.count > 4 * compact.count)
        #expect(FieldPath.parse("/sections/12/expanded")! == (12, .expanded))
        for path in ["/sections/01/title", "/sections//title", "/sections/1/id", "/sections/1/titles", "/sections/1", "/mode",
                     "/sections/1234567890/title", "/section/1/title", "/sections/1/title/0"] {
            #expect(FieldPath.parse(path) == nil, "\(path)")
        }
        #expect(FieldUndo.encode([.replace(path: "/sections/1/title", value: .string("x"))], before: b) == nil)   // no section 1
        #expect(FieldUndo.encode([.replace(path: "/mode", value: .string("single"))], before: b) == nil)
        #expect(FieldUndo.encode(ops + ops, before: b) == nil)
        #expect(FieldUndo.inverse(stored: Array(#"{"ids":["s0"]}"#.utf8), forward: PatchOp.encode(ops)) == nil)
        #expect(FieldUndo.inverse(stored: compact, forward: Array("[]".utf8)) == nil)
        #expect(FieldUndo.inverse(stored: [], forward: PatchOp.encode(ops)) == nil)
        #expect(FieldUndo.inverseBytes(stored: Array("{".utf8), forward: PatchOp.encode(ops)).isEmpty)
    }

    /// A fold's undo over a later move: carried to the section's new place;
    /// over a move of that section itself, refused, naming the move.
    @Test func anUndoIsCarriedOverLaterMovesOrRefusedNamingTheChange() throws {
        let limits = Limits()
        let b0 = Board.initial
        let c1 = try #require(try b0.applying(.toggle(section: "s1"), limits: limits))   // rev 1
        let inverse = try b0.inverse(of: c1.ops)
        let c2 = try #require(try c1.board.applying(.moveSection(section: "s2", to: 0), limits: limits))   // rev 2
        // Without carrying it over, the id guard refuses: s1 is no longer at 1.
        guard case .conflict = try c2.board.reverting(inverse, limits: limits) else { Issue.record("applied to the wrong section"); return }
        let carried = try ChangeTrace.rebase(inverse, over: [(2, c2.ops)]).get()
        guard case .applied(let undone?) = try c2.board.reverting(carried, limits: limits) else { Issue.record("refused"); return }
        #expect(undone.board.sections.map(\.id) == ["s2", "s0", "s1"] && undone.board.expandedIndices.isEmpty)

        let c3 = try #require(try c2.board.applying(.moveSection(section: "s1", to: 0), limits: limits))   // rev 3
        #expect(ChangeTrace.rebase(inverse, over: [(2, c2.ops), (3, c3.ops)]) == .failure(RebaseConflict(rev: 3, path: "/sections/1/id")))
    }

    @Test func anUndoOverALaterEditOfTheSameValueConflicts() throws {
        let limits = Limits()
        let b0 = Board.initial
        let c1 = try #require(try b0.applying(.setTitle(section: "s1", title: "one"), limits: limits))
        let inverse = try b0.inverse(of: c1.ops)
        let c2 = try #require(try c1.board.applying(.toggle(section: "s0"), limits: limits))
        let c3 = try #require(try c2.board.applying(.setTitle(section: "s1", title: "uno"), limits: limits))
        // Unrelated later changes do not stand in the way ...
        guard case .applied(let undone?) = try c2.board.reverting(inverse, limits: limits) else { Issue.record("refused"); return }
        #expect(undone.board.sections[1].title == "1" && undone.board.sections[0].expanded)
        // ... a later edit of the same title does, and is named.
        guard case .conflict(let path) = try c3.board.reverting(inverse, limits: limits) else { Issue.record("applied"); return }
        #expect(ChangeTrace.firstTouching(path, in: [(2, c2.ops), (3, c3.ops)]) == 3)
    }

    @Test func aRemovedSectionComesBackWhereItWas() throws {
        let limits = Limits()
        let b0 = Board.initial
        let c1 = try #require(try b0.applying(.removeSection(section: "s1"), limits: limits))
        let inverse = try b0.inverse(of: c1.ops)
        let c2 = try #require(try c1.board.applying(.toggle(section: "s2"), limits: limits))
        guard case .applied(let undone?) = try c2.board.reverting(inverse, limits: limits) else { Issue.record("refused"); return }
        #expect(undone.board.sections.map(\.id) == ["s0", "s1", "s2"])
        #expect(undone.board.sections[2].expanded)
    }

    /// Single mode: undoing a collapse reopens that section and closes the one opened since.
    @Test func anUndoKeepsTheAccordionRule() throws {
        let limits = Limits()
        let open = try #require(try Board.initial.applying(.expand(section: "s0"), limits: limits)).board
        let c1 = try #require(try open.applying(.collapse(section: "s0"), limits: limits))
        let inverse = try open.inverse(of: c1.ops)
        let c2 = try #require(try c1.board.applying(.expand(section: "s2"), limits: limits))
        guard case .applied(let undone?) = try c2.board.reverting(inverse, limits: limits) else { Issue.record("refused"); return }
        #expect(undone.board.expandedIndices == [0])
        #expect(try c2.board.patched(with: undone.ops) == undone.board)
    }

    @Test func tracesShiftPastInsertionsAndRemovals() {
        let p = "/sections/2/expanded"
        #expect(ChangeTrace.firstTouching(p, in: [(5, [.add(path: "/sections/0", value: .null)]), (6, [.replace(path: "/sections/3/expanded", value: .bool(true))])]) == 6)
        #expect(ChangeTrace.firstTouching(p, in: [(5, [.remove(path: "/sections/0")]), (6, [.replace(path: "/sections/1/title", value: .string("x"))])]) == nil)
        #expect(ChangeTrace.firstTouching(p, in: [(5, [.remove(path: "/sections/2")])]) == 5)
        #expect(ChangeTrace.firstTouching(p, in: [(5, [.replace(path: "/sections", value: .array([]))])]) == 5)
        #expect(ChangeTrace.firstTouching(p, in: [(5, [.move(from: "/sections/2", path: "/sections/0")])]) == 5)
    }

    @Test func summariesSayWhatHappenedInWords() throws {
        let b = Board(mode: .single, sections: [Section(id: "s1", title: "Today")])
        let after = try #require(try b.applying(.toggle(section: "s1"), limits: Limits())).board
        #expect(ChangeSummary.describe(.toggle(section: "s1"), before: b, after: after) == "toggle s1 → expanded 'Today'")
        #expect(text(ChangeSummary.record(.toggle(section: "s1"))) == #"{"type":"toggle","section":"s1"}"#)
        #expect(text(ChangeSummary.record(.replace(after))) == #"{"type":"replace","sections":1}"#)
        #expect(ChangeSummary.describe(.replace(after), before: b, after: after) == "replace the board (1 section, single)")
        #expect(ChangeSummary.describe(.collapseAll, before: after, after: b) == "collapse all (1 section)")
        let two = Board(mode: .multi, sections: [Section(id: "a", title: "A"), Section(id: "b", title: "B")])
        #expect(ChangeSummary.describe(.expandAll, before: two, after: two) == "expand all (2 sections)")
    }

    /// The record of a fold or a title is written straight as bytes: the
    /// same bytes as through a JSON object, escapes and all.
    @Test func aFoldOrTitleRecordIsTheGeneralOneByteForByte() {
        let ids = ["s1", "a\"b", "tab\there", "ü-ñ", "\u{1}ctl", "emoji 🎉"]
        for id in ids {
            for action in [Action.toggle(section: id), .expand(section: id), .collapse(section: id),
                           .setTitle(section: id, title: id + " \\ \n title"), .setTitle(section: "s0", title: "")] {
                #expect(ChangeSummary.record(action) == ChangeSummary.generalRecord(action, reverts: nil), "\(action)")
            }
        }
        #expect(text(ChangeSummary.record(.toggle(section: "s1"), reverts: "toggle")) == #"{"type":"toggle","section":"s1","reverts":"toggle"}"#)
    }
}
