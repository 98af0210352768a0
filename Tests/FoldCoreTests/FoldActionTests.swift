import Testing
@testable import FoldCore

/// Applies `action` and checks the patch reproduces the new board.
func apply(_ action: Action, to board: Board, limits: Limits = .defaults) throws -> Change? {
    let change = try board.applying(action, limits: limits)
    if let change {
        #expect(try JSONPatch.apply(change.ops, to: board.json) == change.board.json)
    }
    return change
}

func expanded(_ board: Board) -> [String] { board.sections.filter(\.expanded).map(\.id) }

@Suite struct FoldActionTests {
    var multi: Board { var b = Board.initial; b.mode = .multi; return b }

    @Test func toggleOpensAndCloses() throws {
        let opened = try #require(try apply(.toggle(section: "s1"), to: .initial))
        #expect(opened.ops == [.replace(path: "/sections/1/expanded", value: .bool(true))])
        #expect(expanded(opened.board) == ["s1"])
        let closed = try #require(try apply(.toggle(section: "s1"), to: opened.board))
        #expect(closed.ops == [.replace(path: "/sections/1/expanded", value: .bool(false))])
        #expect(closed.board == .initial)
    }

    @Test func accordionCollapsesThePreviousInTheSamePatch() throws {
        let first = try #require(try apply(.expand(section: "s0"), to: .initial)).board
        let second = try #require(try apply(.toggle(section: "s2"), to: first))
        #expect(second.ops == [
            .replace(path: "/sections/0/expanded", value: .bool(false)),
            .replace(path: "/sections/2/expanded", value: .bool(true)),
        ])
        #expect(expanded(second.board) == ["s2"])
        let third = try #require(try apply(.expand(section: "s1"), to: second.board))
        #expect(expanded(third.board) == ["s1"])
        #expect(third.ops.count == 2)
    }

    @Test func multiModeIsIndependent() throws {
        let a = try #require(try apply(.expand(section: "s0"), to: multi)).board
        let b = try #require(try apply(.toggle(section: "s2"), to: a))
        #expect(b.ops.count == 1)
        #expect(expanded(b.board) == ["s0", "s2"])
        let c = try #require(try apply(.collapse(section: "s0"), to: b.board))
        #expect(expanded(c.board) == ["s2"])
    }

    @Test func noOpsReturnNil() throws {
        let open = try #require(try apply(.expand(section: "s0"), to: .initial)).board
        #expect(try apply(.expand(section: "s0"), to: open) == nil)
        #expect(try apply(.collapse(section: "s1"), to: open) == nil)
        #expect(try apply(.collapseAll, to: .initial) == nil)
        #expect(try apply(.setMode(.single), to: .initial) == nil)
        var allOpen = multi
        for i in allOpen.sections.indices { allOpen.sections[i].expanded = true }
        #expect(try apply(.expandAll, to: allOpen) == nil)
    }

    @Test func unknownSectionIsNotFound() {
        for action: Action in [.toggle(section: "x"), .expand(section: "x"), .collapse(section: "x")] {
            #expect(errorCode { () throws(FoldError) in _ = try Board.initial.applying(action, limits: .defaults) } == .notFound)
        }
    }

    @Test func expandAllAndCollapseAll() throws {
        #expect(errorCode { () throws(FoldError) in _ = try Board.initial.applying(.expandAll, limits: .defaults) } == .invalid)
        let all = try #require(try apply(.expandAll, to: multi))
        #expect(all.ops.count == 3)
        #expect(expanded(all.board) == ["s0", "s1", "s2"])
        let none = try #require(try apply(.collapseAll, to: all.board))
        #expect(none.ops.count == 3)
        #expect(expanded(none.board) == [])
        let single = try #require(try apply(.expand(section: "s1"), to: .initial)).board
        let closed = try #require(try apply(.collapseAll, to: single))
        #expect(closed.ops == [.replace(path: "/sections/1/expanded", value: .bool(false))])
    }

    @Test func setModeSingleKeepsTheFirstExpanded() throws {
        var board = multi
        board.sections[1].expanded = true
        board.sections[2].expanded = true
        let change = try #require(try apply(.setMode(.single), to: board))
        #expect(change.ops == [
            .replace(path: "/mode", value: .string("single")),
            .replace(path: "/sections/2/expanded", value: .bool(false)),
        ])
        #expect(expanded(change.board) == ["s1"])
        #expect(change.board.mode == .single)
        let back = try #require(try apply(.setMode(.multi), to: change.board))
        #expect(back.ops == [.replace(path: "/mode", value: .string("multi"))])
    }

    @Test func toggleOnABigBoardIsSmall() throws {
        let board = bigBoard(sections: 1_000, itemsPerSection: 10)
        var open = board
        open.sections[500].expanded = true
        let change = try #require(try open.applying(.toggle(section: "s999"), limits: .defaults))
        let bytes = PatchOp.encode(change.ops)
        #expect(bytes.count < 300)
        #expect(text(bytes) == "[{\"op\":\"replace\",\"path\":\"/sections/500/expanded\",\"value\":false},"
            + "{\"op\":\"replace\",\"path\":\"/sections/999/expanded\",\"value\":true}]")
        // In turn, 200 toggles across the board: each closes only the one
        // section that was open and opens the one named, whatever the size.
        // (What one costs is a benchmark's business: Tests/bench/core_toggle.swift.)
        var current = open
        var openIndex = 500
        for i in 0..<200 {
            let target = i * 5
            let step = try #require(try current.applying(.toggle(section: "s\(target)"), limits: .defaults))
            let expected: [PatchOp]
            if target == openIndex {
                expected = [.replace(path: "/sections/\(target)/expanded", value: .bool(false))]
            } else if openIndex < 0 {
                expected = [.replace(path: "/sections/\(target)/expanded", value: .bool(true))]
            } else {
                expected = [.replace(path: "/sections/\(openIndex)/expanded", value: .bool(false)),
                            .replace(path: "/sections/\(target)/expanded", value: .bool(true))]
            }
            try #require(step.ops == expected, "toggle \(i) of s\(target)")
            current = step.board
            openIndex = target == openIndex ? -1 : target
        }
        #expect(expanded(current) == ["s995"])
        #expect(current.sections.count == 1_000 && current.sections.allSatisfy { $0.items.count == 10 })
    }

    @Test func foldNamesAndFlags() {
        #expect(Action.toggle(section: "a").isFold && Action.expandAll.isFold && Action.collapseAll.isFold)
        #expect(!Action.setMode(.multi).isFold && !Action.replace(.initial).isFold)
        #expect(Action.expandAll.name == "expandAll")
        #expect(Action.replace(.initial).name == "replace")
    }
}
