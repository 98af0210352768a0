import FoldClient
import FoldCore
import FoldSession
import Testing

/// The live view's item cursor, the shared focus and follow/browse, without I/O.
@Suite struct FollowBrowseTests {
    func board(mode: BoardMode = .single, open: String? = nil, focus: Focus? = nil) -> Board {
        let items: [JSON] = [.string("i0"), Item(label: "Docs", detail: "read", href: "https://example.com", badge: "new").json, .string("i2")]
        var b = Board(mode: mode, sections: ["a", "b", "c"].map { Section(id: $0, title: $0.uppercased(), items: items, expanded: $0 == open) })
        b.focus = focus
        return b
    }

    func model(_ b: Board, rows: Int = 20) -> LiveModel {
        var m = LiveModel(board: "default", rows: rows, columns: 60)
        m.connection = .connected
        m.update(document: b, position: Position(epoch: "e", rev: 1))
        return m
    }

    @Test func theCursorWalksIntoOpenSectionsAndEnterFocusesAnItem() {
        var m = model(board(open: "a"))
        _ = m.handle(.down, now: 0)
        #expect(m.cursorID == "a" && m.cursorItem == 0)
        _ = m.handle(.down, now: 0)
        #expect(m.handle(.enter, now: 0) == [.send(.focus(section: "a", item: 1))])
        _ = m.handle(.down, now: 0)
        _ = m.handle(.down, now: 0)
        #expect(m.cursorID == "b" && m.cursorItem == nil, "b is closed: its header")
        #expect(m.handle(.enter, now: 0) == [.send(.toggle(section: "b"))])
        _ = m.handle(.up, now: 0)
        #expect(m.cursorID == "a" && m.cursorItem == 2, "up from a header lands on the last item above")
        // The section closes under the cursor: back on its header.
        m.update(document: board(), position: nil)
        #expect(m.cursorID == "a" && m.cursorItem == nil)
    }

    @Test func aNewFocusTakesAFollowingCursorToItAndIsMarked() {
        var m = model(board())
        m.update(document: board(open: "c", focus: Focus(section: "c", item: 1)), position: nil)
        #expect(m.cursorID == "c" && m.cursorItem == 1)
        let frame = Layout.frame(m, now: 0).map(\.text)
        #expect(frame.contains { $0.contains("→ Docs  [new]  <https://example.com> — read") }, "\(frame)")
        #expect(Layout.frame(m, now: 0).contains { $0.style == .cursor && $0.text.contains("→ Docs") })
        // The user moves away; an unrelated patch leaves the cursor where they put it.
        _ = m.handle(.home, now: 0)
        m.update(document: board(open: "c", focus: Focus(section: "c", item: 1)), position: nil)
        #expect(m.cursorID == "a")
        #expect(Layout.frame(m, now: 0).contains { $0.style == .focus && $0.text.contains("→ Docs") })
    }

    @Test func browsingFoldsLocallySendsNothingAndFollowingSnapsBack() {
        var m = model(board(open: "a"))
        #expect(m.following && Layout.titleText(m, now: 0).contains("following"))
        #expect(m.handle(.char("f"), now: 0) == [.setView(following: false)])
        #expect(!m.following)
        #expect(Layout.titleText(m, now: 0).contains("browsing"))
        _ = m.handle(.end, now: 0)
        #expect(m.handle(.enter, now: 0) == [], "a local fold sends nothing")
        #expect(m.shown?.sections.map(\.expanded) == [false, false, true], "the accordion, locally")
        #expect(m.document?.sections.map(\.expanded) == [true, false, false], "the board is untouched")
        #expect(m.handle(.char("e"), now: 0) == [])
        #expect(m.flash?.text.hasPrefix("invalid") == true, "expandAll in single mode, refused here too")
        // The board's edits still arrive: a new title, a new focus, a fold elsewhere.
        var next = board(open: "b", focus: Focus(section: "b", item: 0))
        next.sections[0].title = "renamed"
        m.update(document: next, position: nil)
        #expect(m.shown?.sections[0].title == "renamed")
        #expect(m.shown?.sections.map(\.expanded) == [false, false, true], "local folds kept")
        #expect(m.cursorID == "c", "a browsing screen is not moved by the focus")
        // An item click while browsing still points everyone at it.
        _ = m.handle(.down, now: 0)
        #expect(m.handle(.enter, now: 0) == [.send(.focus(section: "c", item: 0))])
        // Back to following: the board's folds, the cursor on its focus.
        #expect(m.handle(.char("f"), now: 0) == [.setView(following: true)])
        #expect(m.shown == m.document)
        #expect(m.cursorID == "b" && m.cursorItem == 0)
        #expect(m.handle(.char("c"), now: 0) == [.send(.collapseAll)])
    }

    @Test func browsingKeepsOneOpenInSingleModeWhenTheBoardChanges() {
        var m = model(board(mode: .multi, open: "a"))
        _ = m.handle(.char("f"), now: 0)
        _ = m.handle(.down, now: 0)
        _ = m.handle(.down, now: 0)
        _ = m.handle(.down, now: 0)
        _ = m.handle(.down, now: 0)
        _ = m.handle(.enter, now: 0)
        #expect(m.shown?.sections.map(\.expanded) == [true, true, false])
        m.update(document: board(mode: .single, open: "a"), position: nil)
        #expect(m.shown?.sections.map(\.expanded) == [true, false, false])
    }

    @Test func presenceShowsFollowers() {
        var m = model(board())
        m.viewers = 3
        m.followers = 2
        #expect(Layout.titleText(m, now: 0).contains("3 viewers (2 following)"))
    }

    @Test func showMarksTheFocusAndEveryField() {
        let text = TreeText.render(board: "b", position: nil, document: board(open: "a", focus: Focus(section: "a", item: 1)))
        #expect(text.hasPrefix("board b · single · focus a item 1\n"))
        #expect(text.contains("\n    i0\n  → Docs  [new]  <https://example.com>\n      read\n    i2\n"), "\(text)")
    }

    @Test func presenceFollowingIsReadAndBrowsingSurvivesABoardSwitch() {
        let text = #"{"type":"presence","board":"b","viewers":3,"following":1}"#
        #expect(ServerEvent.decode(Array(text.utf8)) == .presence(board: "b", viewers: 3, following: 1))
        #expect(ServerEvent.decode(Array(#"{"type":"presence","board":"b","viewers":3}"#.utf8)) == .presence(board: "b", viewers: 3, following: nil))
        var m = model(board(open: "a"))
        _ = m.handle(.char("f"), now: 0)
        _ = m.handle(.enter, now: 0)
        #expect(m.shown?.sections.map(\.expanded) == [false, false, false])
        m.switchTo(board: "other")
        m.update(document: board(open: "a"), position: nil)
        #expect(!m.following && m.shown?.sections.map(\.expanded) == [true, false, false], "the other board's folds are not carried over")
    }
}
