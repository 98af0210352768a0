import Testing
@testable import FoldCore

/// Undo after undo: a revert applies when every value its
/// change set still holds, whatever touched the path in between; one that
/// finds another value is refused, naming the latest rev that changed it.
/// Each case in order (the last change undone first) and out of order.
@Suite struct UndoAfterUndoTests {
    @Test func titlesInOrder() throws {
        var log = UndoLog()
        let x = try log.act(.setTitle(section: "s2", title: "A"))
        let y = try log.act(.setTitle(section: "s2", title: "B"))
        #expect(try log.undo(y) == .applied(rev: 3))
        #expect(log.board.sections[2].title == "A")
        #expect(try log.undo(x) == .applied(rev: 4))
        #expect(log.board == .initial)
    }

    @Test func titlesOutOfOrder() throws {
        var log = UndoLog()
        let x = try log.act(.setTitle(section: "s2", title: "A"))
        let y = try log.act(.setTitle(section: "s2", title: "B"))
        #expect(try log.undo(x) == .conflict(rev: y, path: "/sections/2/title"))
        #expect(try log.undo(y) == .applied(rev: 3))
        #expect(try log.undo(x) == .applied(rev: 4))
        #expect(log.board == .initial)
    }

    /// The latest change that left another value is the one named; a later
    /// edit that set the value back is no obstacle.
    @Test func theLatestChangeInTheWayIsNamed() throws {
        var log = UndoLog()
        let x = try log.act(.setTitle(section: "s2", title: "A"))
        try log.act(.setTitle(section: "s2", title: "B"))
        let z = try log.act(.setTitle(section: "s2", title: "C"))
        #expect(try log.undo(x) == .conflict(rev: z, path: "/sections/2/title"))
        try log.act(.setTitle(section: "s2", title: "A"))
        #expect(try log.undo(x) == .applied(rev: 5))
        #expect(log.board == .initial)
    }

    /// Insertions and removals of sections in between still shift the undo's indices.
    @Test func titlesOverShiftingSections() throws {
        var log = UndoLog()
        let x = try log.act(.setTitle(section: "s2", title: "A"))
        try log.act(.addSection(SectionDraft(id: "n", title: "N"), at: 0))
        let y = try log.act(.setTitle(section: "s2", title: "B"))
        try log.act(.removeSection(section: "s0"))
        #expect(try log.undo(x) == .conflict(rev: y, path: "/sections/2/title"))
        #expect(try log.undo(y) == .applied(rev: 5))
        #expect(try log.undo(x) == .applied(rev: 6))
        #expect(log.board.sections.map(\.id) == ["n", "s1", "s2"] && log.board.sections[2].title == "2")
    }

    @Test func itemsInOrderAndOutOfOrder() throws {
        for outOfOrder in [false, true] {
            var log = UndoLog()
            let x = try log.act(.setItems(section: "s0", items: [.string("a")]))
            let y = try log.act(.setItems(section: "s0", items: [.string("a"), .string("b")]))
            if outOfOrder { #expect(try log.undo(x) == .conflict(rev: y, path: "/sections/0/items")) }
            #expect(try log.undo(y) == .applied(rev: 3))
            #expect(log.board.sections[0].items == [.string("a")])
            #expect(try log.undo(x) == .applied(rev: 4))
            #expect(log.board == .initial)
        }
    }

    /// Single mode: y's expand closed what x opened; undoing y opens it again.
    @Test func foldsInOrderAndOutOfOrder() throws {
        for outOfOrder in [false, true] {
            var log = UndoLog()
            let x = try log.act(.expand(section: "s1"))
            let y = try log.act(.expand(section: "s2"))
            if outOfOrder { #expect(try log.undo(x) == .conflict(rev: y, path: "/sections/1/expanded")) }
            #expect(try log.undo(y) == .applied(rev: 3))
            #expect(log.board.expandedIndices == [1])
            #expect(try log.undo(x) == .applied(rev: 4))
            #expect(log.board == .initial)
        }
    }

    /// A fold toggled twice since holds what x set: x is undone.
    @Test func aFoldToggledBackHoldsAgain() throws {
        var log = UndoLog()
        let x = try log.act(.toggle(section: "s0"))
        try log.act(.toggle(section: "s0"))
        let z = try log.act(.toggle(section: "s0"))
        #expect(try log.undo(x) == .applied(rev: z + 1))
        #expect(log.board == .initial)
    }

    /// Multi mode, folds of different sections: either order.
    @Test func independentFoldsEitherOrder() throws {
        for outOfOrder in [false, true] {
            var log = UndoLog()
            let m = try log.act(.setMode(.multi))
            let x = try log.act(.toggle(section: "s0"))
            let y = try log.act(.toggle(section: "s1"))
            for rev in outOfOrder ? [x, y] : [y, x] {
                let next = log.head + 1
                #expect(try log.undo(rev) == .applied(rev: next))
            }
            #expect(try log.undo(m) == .applied(rev: 6))
            #expect(log.board == .initial)
        }
    }

    @Test func focusInOrderAndOutOfOrder() throws {
        for outOfOrder in [false, true] {
            var log = UndoLog()
            let x = try log.act(.focus(section: "s1", item: 1))
            let y = try log.act(.focus(section: "s2", item: 0))
            if outOfOrder { #expect(try log.undo(x) == .conflict(rev: y, path: "/focus")) }
            #expect(try log.undo(y) == .applied(rev: 3))
            #expect(log.board.focus == Focus(section: "s1", item: 1) && log.board.expandedIndices == [1])
            #expect(try log.undo(x) == .applied(rev: 4))
            #expect(log.board == .initial)
        }
    }

    /// A cleared focus comes back once the focus set since is undone; before, that focus is in the way.
    @Test func aClearedFocusComesBackAfterUndo() throws {
        for outOfOrder in [false, true] {
            var log = UndoLog()
            let x = try log.act(.focus(section: "s1", item: 1))
            let y = try log.act(.clearFocus)
            let z = try log.act(.focus(section: "s2", item: 0))
            if outOfOrder { #expect(try log.undo(y) == .conflict(rev: z, path: "/focus")) }
            #expect(try log.undo(z) == .applied(rev: 4))
            #expect(try log.undo(y) == .applied(rev: 5))
            #expect(log.board.focus == Focus(section: "s1", item: 1))
            #expect(try log.undo(x) == .applied(rev: 6))
            #expect(log.board == .initial)
        }
    }

    /// x edits a section that y removes; undoing y brings it back as x left it, so x can be undone.
    @Test func anEditOfARemovedAndReAddedSection() throws {
        for outOfOrder in [false, true] {
            var log = UndoLog()
            let x = try log.act(.setTitle(section: "s2", title: "A"))
            let y = try log.act(.removeSection(section: "s2"))
            if outOfOrder { #expect(try log.undo(x) == .conflict(rev: y, path: "/sections/2/id")) }
            #expect(try log.undo(y) == .applied(rev: 3))
            #expect(log.board.sections.map(\.title) == ["0", "1", "A"])
            #expect(try log.undo(x) == .applied(rev: 4))
            #expect(log.board == .initial)
        }
    }

    /// x adds a section, y removes it, undoing y adds it back: x's undo removes it again.
    @Test func anAddedSectionRemovedAndReAdded() throws {
        for outOfOrder in [false, true] {
            var log = UndoLog()
            let x = try log.act(.addSection(SectionDraft(id: "s9", title: "9"), at: 1))
            let y = try log.act(.removeSection(section: "s9"))
            if outOfOrder { #expect(try log.undo(x) == .conflict(rev: y, path: "/sections/1")) }
            #expect(try log.undo(y) == .applied(rev: 3))
            #expect(try log.undo(x) == .applied(rev: 4))
            #expect(log.board == .initial)
        }
    }

    /// Undo, redo, undo of a removal: each revert judged by what holds now.
    @Test func undoRedoUndoOfARemoval() throws {
        var log = UndoLog()
        let x = try log.act(.removeSection(section: "s1"))
        #expect(try log.undo(x) == .applied(rev: 2))                      // s1 back
        #expect(try log.undo(2) == .applied(rev: 3))                      // removed again
        #expect(try log.undo(2) == .conflict(rev: 3, path: "/sections/1")) // already gone
        #expect(try log.undo(3) == .applied(rev: 4))                      // back again
        #expect(try log.undo(2) == .applied(rev: 5))                      // removed again
        #expect(try log.undo(x) == .applied(rev: 6))
        #expect(log.board == .initial)
        // Undoing a removal twice over: the id is taken (as before).
        #expect(try log.undo(x) == .conflict(rev: 6, path: "/sections"))
    }

    /// A section moved away and back stands where x left it.
    @Test func movesInOrderAndOutOfOrder() throws {
        for outOfOrder in [false, true] {
            var log = UndoLog()
            let x = try log.act(.moveSection(section: "s1", to: 0))
            let y = try log.act(.moveSection(section: "s1", to: 2))
            if outOfOrder { #expect(try log.undo(x) == .conflict(rev: y, path: "/sections/0/id")) }
            #expect(try log.undo(y) == .applied(rev: 3))
            #expect(log.board.sections.map(\.id) == ["s1", "s0", "s2"])
            #expect(try log.undo(x) == .applied(rev: 4))
            #expect(log.board == .initial)
        }
    }

    /// Any history (but wholesale replaces), undone from the last change to
    /// the first: every undo applies and the board comes back.
    @Test(arguments: ActionPropertyTests.seeds)
    func randomHistoriesUndoneInOrderComeBack(seed: UInt64) throws {
        var rng = SplitMix64(seed: seed &+ 22)
        let generator = ActionPropertyTests()
        for start in [Board.initial, bigBoard(sections: 5, itemsPerSection: 3, mode: .multi)] {
            for _ in 0..<20 {
                var log = UndoLog(start)
                while log.head < 8 {
                    let action = generator.randomAction(for: log.board, using: &rng)
                    if case .replace = action { continue }
                    _ = try log.tryAct(action)
                }
                for rev in (1...8).reversed() {
                    let next = log.head + 1
                    #expect(try log.undo(rev) == .applied(rev: next), "seed \(seed) rev \(rev)")
                }
                #expect(log.board == start, "seed \(seed)")
            }
        }
    }

    /// Any history, reverts in any order (undos of undos too): each verdict
    /// agrees with the generic applier (checked by the log), a conflict names
    /// a later change, and the board stays valid.
    @Test(arguments: ActionPropertyTests.seeds)
    func randomRevertsInAnyOrderStayConsistent(seed: UInt64) throws {
        var rng = SplitMix64(seed: seed &+ 2222)
        let generator = ActionPropertyTests()
        var applied = 0
        for _ in 0..<20 {
            var log = UndoLog()
            while log.head < 8 { _ = try log.tryAct(generator.randomAction(for: log.board, using: &rng)) }
            for _ in 0..<10 {
                let rev = Int.random(in: 1...log.head, using: &rng)
                switch try log.undo(rev) {
                case .applied: applied += 1
                case .unchanged: break
                case .conflict(let by, _): #expect(by > rev && by <= log.head, "seed \(seed)")
                }
                #expect(throws: Never.self) { try log.board.validate(limits: log.limits) }
            }
        }
        #expect(applied > 20)
    }
}
