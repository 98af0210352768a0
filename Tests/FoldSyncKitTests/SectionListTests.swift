import FoldCore
import FoldSyncKit
import Testing

/// The list value a diffable data source is fed, without a view: open and
/// close, the accordion, sections added, removed and moved, items added and
/// moved, unique identifiers.
@Suite struct SectionListTests {
    func board(_ sections: [(String, [JSON], Bool)], mode: BoardMode = .single) -> Board {
        Board(mode: mode, sections: sections.map { Section(id: $0.0, title: $0.0.uppercased(), items: $0.1, expanded: $0.2) })
    }

    @Test func sectionsAndItemsInOrderWithOnlyOpenSectionsShowingTheirItems() {
        let list = SectionList(board([("a", [.string("1"), .string("2")], true), ("b", [.string("3")], false)]))
        #expect(list.sections == ["a", "b"])
        #expect(list.open == ["a"])
        #expect(list.shownItems(of: "a").map(\.item) == ["#0", "#1"])
        #expect(list.shownItems(of: "b").isEmpty)
        #expect(list.items["b"]?.count == 1)
        #expect(list.titles["a"] == "A")
        #expect(list.item(list.items["b"]![0])?.label == "3")
        #expect(SectionList(nil).sections.isEmpty)
    }

    @Test func theAccordionOpensOneAndClosesTheOther() throws {
        var b = board([("a", [], true), ("b", [], false)])
        let before = SectionList(b)
        b = try #require(try b.applying(.toggle(section: "b"), limits: .defaults)).board
        let after = SectionList(b)
        let c = after.changes(since: before)
        #expect(c.opened == ["b"] && c.closed == ["a"])
        #expect(c.inserted.isEmpty && c.removed.isEmpty && c.moved.isEmpty && c.reloaded.isEmpty)
        #expect(SectionList(b).changes(since: after).isEmpty)
    }

    @Test func itemIdentifiersUseTheItemsIDsAndStayUnique() {
        let items: [JSON] = [Item(label: "x", id: "k").json, Item(label: "y", id: "k").json, .string("plain"), Item(label: "z", id: "m").json]
        let list = SectionList(board([("a", items, true)]))
        #expect(list.items["a"]!.map(\.item) == ["id:k", "#1", "#2", "id:m"])
        #expect(Set(list.items["a"]!).count == 4)
    }

    @Test func itemsAddedOrMovedReloadTheirSectionOnly() {
        let one = Item(label: "one", id: "1").json, two = Item(label: "two", id: "2").json
        let before = SectionList(board([("a", [one, two], true), ("b", [.string("q")], false)]))
        let moved = SectionList(board([("a", [two, one], true), ("b", [.string("q")], false)]))
        #expect(moved.changes(since: before).reloaded == ["a"])
        let added = SectionList(board([("a", [one, two], true), ("b", [.string("q"), .string("r")], false)]))
        #expect(added.changes(since: before).reloaded == ["b"])
        let relabelled = SectionList(board([("a", [one, Item(label: "TWO", id: "2").json], true), ("b", [.string("q")], false)]))
        #expect(relabelled.changes(since: before).reloaded == ["a"])
    }

    @Test func sectionsInsertedRemovedAndMovedAreTheFewestNeeded() {
        let before = SectionList(board([("a", [], false), ("b", [], false), ("c", [], false), ("d", [], false)]))
        let after = SectionList(board([("b", [], false), ("c", [], false), ("a", [], false), ("e", [], false)]))
        let c = after.changes(since: before)
        #expect(c.inserted == ["e"])
        #expect(c.removed == ["d"])
        #expect(c.moved == ["a"])
        #expect(SectionList(board([("c", [], false), ("b", [], false), ("a", [], false)]))
            .changes(since: SectionList(board([("a", [], false), ("b", [], false), ("c", [], false)]))).moved.count == 2)
    }
}
