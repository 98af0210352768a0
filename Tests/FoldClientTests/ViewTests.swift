import FoldClient
import FoldCore
import Glibc
import Testing

@Suite struct DisplayWidthTests {
    init() { setlocale(LC_ALL, "C.UTF-8") }

    @Test func measuresColumnsNotBytes() {
        #expect(DisplayWidth.of("abc") == 3)
        #expect(DisplayWidth.of("分组") == 4)
        #expect(DisplayWidth.of("🎉") == 2)
        #expect(DisplayWidth.of("e\u{301}") == 1)  // combining accent
    }

    @Test func truncatesWithAnEllipsisAndNeverStraddles() {
        #expect(DisplayWidth.fit("hello", 5) == ("hello", 5))
        #expect(DisplayWidth.fit("hello!", 5) == ("hell…", 5))
        // 分组测 = 6 columns; in 4 columns: 分 (2) + … (1) = 3, the next wide char would straddle.
        #expect(DisplayWidth.fit("分组测", 4) == ("分…", 3))
        #expect(DisplayWidth.fit("分组测", 5) == ("分组…", 5))
        #expect(DisplayWidth.fit("a🎉b", 3) == ("a…", 2))
        #expect(DisplayWidth.fit("x", 0) == ("", 0))
    }

    @Test func controlCharactersAreNeutralised() {
        #expect(Printable.clean("a\u{1B}[2Jb\nc") == "a\u{FFFD}[2Jb\u{FFFD}c")
    }
}

@Suite struct KeyDecoderTests {
    @Test func decodesArrowsPagesAndText() {
        var d = KeyDecoder()
        #expect(d.decode(Array("\u{1B}[A\u{1B}[B\u{1B}OA\u{1B}[5~\u{1B}[6~\u{1B}[H\u{1B}[4~ \rq".utf8))
                == [.up, .down, .up, .pageUp, .pageDown, .home, .end, .space, .enter, .char("q")])
        #expect(d.decode([0x03]) == [.ctrlC])
        #expect(d.decode(Array("é".utf8)) == [.char("é")])
    }

    @Test func keepsSplitSequencesAndSeesALoneEscape() {
        var d = KeyDecoder()
        #expect(d.decode([0x1B, UInt8(ascii: "[")]) == [])
        #expect(d.decode([UInt8(ascii: "B")]) == [.down])
        #expect(d.decode([0x1B]) == [.escape])
        #expect(d.decode([0xE5]) == [])
        #expect(d.decode([0x88, 0x86]) == [.char("分")])
    }
}

@Suite struct LiveModelTests {
    func board(_ ids: [String], expanded: Set<String> = [], mode: BoardMode = .multi) -> Board {
        Board(mode: mode, sections: ids.map { Section(id: $0, title: $0.uppercased(), items: [.string("i1"), .string("i2")], expanded: expanded.contains($0)) })
    }

    func model(_ b: Board, rows: Int = 10) -> LiveModel {
        var m = LiveModel(board: "default", rows: rows, columns: 40)
        m.connection = .connected
        m.update(document: b, position: Position(epoch: "e", rev: 1))
        return m
    }

    @Test func cursorStaysOnItsSection() {
        var m = model(board(["a", "b", "c"]))
        #expect(m.cursorID == "a")
        _ = m.handle(.down, now: 0)
        #expect(m.cursorID == "b")
        // Added before it, moved, and others removed: still on b.
        m.update(document: board(["z", "a", "b", "c"]), position: nil)
        #expect(m.cursorID == "b" && m.cursorIndex == 2)
        m.update(document: board(["b", "z"]), position: nil)
        #expect(m.cursorID == "b" && m.cursorIndex == 0)
        // Its own removal: the section now at its place.
        _ = m.handle(.down, now: 0)
        m.update(document: board(["b", "c"]), position: nil)
        #expect(m.cursorID == "c")
        m.update(document: board(["b"]), position: nil)
        #expect(m.cursorID == "b")
    }

    @Test func keysBecomeActions() {
        var m = model(board(["a", "b"]))
        #expect(m.handle(.enter, now: 0) == [.send(.toggle(section: "a"))])
        #expect(m.handle(.char("e"), now: 0) == [.send(.expandAll)])
        #expect(m.handle(.char("c"), now: 0) == [.send(.collapseAll)])
        #expect(m.handle(.char("m"), now: 0) == [.send(.setMode(.single))])
        #expect(m.handle(.char("b"), now: 0) == [.fetchBoards])
        m.showBoards(["default", "other"])
        #expect(m.handle(.down, now: 0) == [])
        #expect(m.handle(.enter, now: 0) == [.switchBoard("other")])
        #expect(m.board == "other" && m.document == nil)
        #expect(m.handle(.char("q"), now: 0) == [.quit])
    }

    @Test func offlineActionsAreRefusedVisibly() {
        var m = model(board(["a"]))
        m.connection = .reconnecting(at: 13, why: "connection lost")
        #expect(m.handle(.space, now: 10) == [])
        #expect(m.flash?.text == "offline: toggle not sent")
        #expect(Layout.titleText(m, now: 10).contains("reconnecting in 3s"))
        m.expire(now: 10 + LiveModel.flashSeconds)
        #expect(m.flash == nil)
    }

    @Test func scrollsToKeepTheCursorVisible() {
        // 10 rows: title, 7 body rows, status, help. Each expanded section takes 3 rows.
        var m = model(board(["a", "b", "c", "d", "e"], expanded: ["a", "b", "c", "d", "e"]))
        _ = m.handle(.end, now: 0)
        #expect(m.cursorID == "e")
        let frame = Layout.frame(m, now: 0)
        #expect(frame.count == 10)
        #expect(frame.contains { $0.text == "> ▾ E" })
        _ = m.handle(.home, now: 0)
        #expect(m.top == 0)
        _ = m.handle(.pageDown, now: 0)
        #expect(m.cursorIndex == 2)
    }

    @Test func framesFitTheWidth() {
        setlocale(LC_ALL, "C.UTF-8")
        var b = board(["a"])
        b.sections[0].title = String(repeating: "分组", count: 30)
        let m = model(b)
        for line in Layout.frame(m, now: 0) {
            #expect(line.width <= 40)
            #expect(DisplayWidth.of(line.text) == line.width)
        }
        #expect(Layout.frame(m, now: 0)[1].text.hasSuffix("…"))
    }

    @Test func treeTextOfShow() {
        let text = TreeText.render(board: "b", position: Position(epoch: "e", rev: 2), document: board(["a"], expanded: ["a"]))
        #expect(text == "board b · rev 2 · multi\n▾ a  A\n    i1\n    i2\n")
    }
}
