import Testing
@testable import FoldCore

@Suite struct EditActionTests {
    func code(_ action: Action, on board: Board = .initial, limits: Limits = .defaults) -> ErrorCode? {
        errorCode { () throws(FoldError) in _ = try board.applying(action, limits: limits) }
    }

    @Test func addSectionAppendsWithAGeneratedID() throws {
        let change = try #require(try apply(.addSection(SectionDraft(title: "new", items: [.string("x")]), at: nil), to: .initial))
        #expect(change.board.sections.map(\.id) == ["s0", "s1", "s2", "s3"])
        #expect(change.ops == [.add(path: "/sections/3", value: change.board.sections[3].json)])
        var gapped = Board.initial
        gapped.sections[2].id = "s3"
        let next = try #require(try apply(.addSection(SectionDraft(title: "n"), at: 0), to: gapped))
        #expect(next.board.sections.first?.id == "s4")
        #expect(next.ops.first == .add(path: "/sections/0", value: next.board.sections[0].json))
    }

    @Test func addSectionRules() throws {
        #expect(code(.addSection(SectionDraft(id: "s1", title: "t"), at: nil)) == .invalid)
        #expect(code(.addSection(SectionDraft(id: "bad id", title: "t"), at: nil)) == .badRequest)
        #expect(code(.addSection(SectionDraft(id: "", title: "t"), at: nil)) == .badRequest)
        #expect(code(.addSection(SectionDraft(title: "t"), at: 4)) == .invalid)
        #expect(code(.addSection(SectionDraft(title: "t"), at: -1)) == .invalid)
        #expect(code(.addSection(SectionDraft(title: "t", items: [.int(1)]), at: nil)) == .badRequest)
        var limits = Limits()
        limits.maxSections = 3
        #expect(code(.addSection(SectionDraft(title: "t"), at: nil), limits: limits) == .invalid)
        limits = Limits()
        limits.maxTitleBytes = 2
        #expect(code(.addSection(SectionDraft(title: "été"), at: nil), limits: limits) == .invalid)
        limits = Limits()
        limits.maxItems = 1
        #expect(code(.addSection(SectionDraft(title: "t", items: [.string("a"), .string("b")]), at: nil), limits: limits) == .invalid)
        limits = Limits()
        limits.maxBoardBytes = Board.initial.encodedByteCount() + 20
        #expect(code(.addSection(SectionDraft(title: "t"), at: nil), limits: limits) == .invalid)
        let added = try #require(try apply(.addSection(SectionDraft(id: "z", title: "t"), at: 3), to: .initial))
        #expect(added.board.sections.last?.id == "z")
    }

    @Test func addingAnExpandedSectionInSingleModeCollapsesTheOther() throws {
        let open = try #require(try apply(.expand(section: "s2"), to: .initial)).board
        let change = try #require(try apply(.addSection(SectionDraft(id: "n", title: "N", expanded: true), at: 1), to: open))
        #expect(change.ops.count == 2)
        #expect(change.ops[0] == .replace(path: "/sections/2/expanded", value: .bool(false)))
        #expect(expanded(change.board) == ["n"])
        var multi = open
        multi.mode = .multi
        let both = try #require(try apply(.addSection(SectionDraft(id: "n", title: "N", expanded: true), at: 1), to: multi))
        #expect(expanded(both.board) == ["n", "s2"])
    }

    @Test func removeSection() throws {
        let change = try #require(try apply(.removeSection(section: "s1"), to: .initial))
        #expect(change.ops == [.remove(path: "/sections/1")])
        #expect(change.board.sections.map(\.id) == ["s0", "s2"])
        #expect(code(.removeSection(section: "nope")) == .notFound)
    }

    @Test func moveSection() throws {
        let change = try #require(try apply(.moveSection(section: "s0", to: 2), to: .initial))
        #expect(change.ops == [.move(from: "/sections/0", path: "/sections/2")])
        #expect(change.board.sections.map(\.id) == ["s1", "s2", "s0"])
        let back = try #require(try apply(.moveSection(section: "s0", to: 0), to: change.board))
        #expect(back.board == .initial)
        #expect(try apply(.moveSection(section: "s1", to: 1), to: .initial) == nil)
        #expect(code(.moveSection(section: "s1", to: 3)) == .invalid)
        #expect(code(.moveSection(section: "s1", to: -1)) == .invalid)
        #expect(code(.moveSection(section: "x", to: 0)) == .notFound)
    }

    @Test func setTitle() throws {
        let change = try #require(try apply(.setTitle(section: "s2", title: "Deux\n"), to: .initial))
        #expect(change.ops == [.replace(path: "/sections/2/title", value: .string("Deux\n"))])
        #expect(try apply(.setTitle(section: "s2", title: "2"), to: .initial) == nil)
        #expect(code(.setTitle(section: "x", title: "t")) == .notFound)
        var limits = Limits()
        limits.maxTitleBytes = 3
        #expect(code(.setTitle(section: "s0", title: "four"), limits: limits) == .invalid)
        limits = Limits()
        limits.maxBoardBytes = Board.initial.encodedByteCount() + 2
        #expect(code(.setTitle(section: "s0", title: "0123"), limits: limits) == .invalid)
        #expect(code(.setTitle(section: "s0", title: "012"), limits: limits) == nil)
    }

    @Test func setItems() throws {
        let items: [JSON] = [.string("a"), .object(["label": .string("b"), "href": .string("https://example.com/x")])]
        let change = try #require(try apply(.setItems(section: "s0", items: items), to: .initial))
        #expect(change.ops == [.replace(path: "/sections/0/items", value: .array(items))])
        #expect(try apply(.setItems(section: "s0", items: [.string("1"), .string("2")]), to: .initial) == nil)
        #expect(code(.setItems(section: "x", items: [])) == .notFound)
        #expect(code(.setItems(section: "s0", items: [.null])) == .badRequest)
        #expect(code(.setItems(section: "s0", items: [.object(["name": .string("x")])])) == .badRequest)
        var limits = Limits()
        limits.maxItemBytes = 5
        #expect(code(.setItems(section: "s0", items: [.string("long")]), limits: limits) == .invalid)
        #expect(code(.setItems(section: "s0", items: [.string("abc")]), limits: limits) == nil)
        limits = Limits()
        limits.maxItems = 2
        #expect(code(.setItems(section: "s0", items: Array(repeating: .string("a"), count: 3)), limits: limits) == .invalid)
        limits = Limits()
        limits.maxBoardBytes = Board.initial.encodedByteCount()
        #expect(code(.setItems(section: "s0", items: [.string("1"), .string("2"), .string("3")]), limits: limits) == .invalid)
    }

    @Test func replaceDiffs() throws {
        #expect(try apply(.replace(.initial), to: .initial) == nil)
        var fields = Board.initial
        fields.mode = .multi
        fields.sections[0].title = "zero"
        fields.sections[1].expanded = true
        fields.sections[2].items = []
        let change = try #require(try apply(.replace(fields), to: .initial))
        #expect(change.ops == [
            .replace(path: "/mode", value: .string("multi")),
            .replace(path: "/sections/0/title", value: .string("zero")),
            .replace(path: "/sections/1/expanded", value: .bool(true)),
            .replace(path: "/sections/2/items", value: .array([])),
        ])
        var reordered = Board.initial
        reordered.sections.swapAt(0, 1)
        let whole = try #require(try apply(.replace(reordered), to: .initial))
        #expect(whole.ops == [.replace(path: "/sections", value: .array(reordered.sections.map(\.json)))])
        var broken = Board.initial
        broken.sections[0].expanded = true
        broken.sections[1].expanded = true
        #expect(code(.replace(broken)) == .invalid)
    }
}
