import FoldSession
import FoldCore
import Testing

@Suite struct MirrorTests {
    let state = Board.initial.json

    func snapshot(rev: Int, epoch: String = "e1") -> ServerEvent {
        .snapshot(board: "b", position: Position(epoch: epoch, rev: rev), state: state)
    }

    func patch(_ rev: Int, _ ops: String, epoch: String = "e1") throws -> ServerEvent {
        .patch(board: "b", position: Position(epoch: epoch, rev: rev), ops: try JSONParser.parse(ops), by: nil)
    }

    @Test func appliesPatchesInOrder() throws {
        var m = BoardMirror(board: "b")
        #expect(m.apply(snapshot(rev: 4)) == .changed)
        #expect(m.apply(try patch(5, #"[{"op":"replace","path":"/sections/1/expanded","value":true}]"#)) == .changed)
        #expect(m.position == Position(epoch: "e1", rev: 5))
        #expect(m.document?.expandedIndices == [1])
        // A duplicate is ignored; a gap or another epoch asks for a resync.
        #expect(m.apply(try patch(5, "[]")) == .unchanged)
        if case .outOfStep = m.apply(try patch(7, "[]")) {} else { Issue.record("gap not detected") }
        if case .outOfStep = m.apply(try patch(6, "[]", epoch: "e2")) {} else { Issue.record("epoch not checked") }
        if case .outOfStep = m.apply(try patch(6, #"[{"op":"remove","path":"/nope"}]"#)) {} else {
            Issue.record("a patch that does not apply must resync")
        }
        #expect(m.position?.rev == 5)
    }

    @Test func ignoresOtherBoardsAndTracksPresenceAndDeletion() throws {
        var m = BoardMirror(board: "b")
        #expect(m.apply(.snapshot(board: "other", position: Position(epoch: "x", rev: 1), state: state)) == .unchanged)
        #expect(m.state == nil)
        #expect(m.apply(.presence(board: "b", viewers: 3, following: 2)) == .presence)
        #expect(m.viewers == 3)
        _ = m.apply(snapshot(rev: 1))
        #expect(m.apply(.deleted(board: "b")) == .deleted)
        #expect(m.document == nil)
        #expect(m.position?.rev == 1)  // kept for resuming
    }

    @Test func resolvesSectionReferences() throws {
        var m = BoardMirror(board: "b")
        _ = m.apply(snapshot(rev: 0))
        #expect(try m.resolveSection("#2").get() == "s2")
        #expect(try m.resolveSection("s1").get() == "s1")
        #expect((try? m.resolveSection("#3").get()) == nil)
        #expect((try? m.resolveSection("#x").get()) == nil)
    }

    @Test func decodesServerMessages() {
        let text = #"{"type":"patch","board":"b","epoch":"e","rev":3,"ops":[],"by":"c1"}"#
        #expect(ServerEvent.decode(Array(text.utf8)) == .patch(board: "b", position: Position(epoch: "e", rev: 3), ops: .array([]), by: "c1"))
        #expect(ServerEvent.decode(Array(#"{"type":"ack","id":null,"board":"b","rev":2}"#.utf8)) == .ack(id: nil, board: "b", rev: 2))
        #expect(ServerEvent.decode(Array(#"{"type":"deleted","board":"b"}"#.utf8)) == .deleted(board: "b"))
        #expect(ServerEvent.decode(Array(#"{"type":"future"}"#.utf8)) == .other(type: "future"))
        #expect(ServerEvent.decode(Array("[1]".utf8)) == nil)
    }

    @Test func encodesRequests() throws {
        let sub = ClientRequest.subscribe(board: "b", since: Position(epoch: "e", rev: 4))
        #expect(String(decoding: sub, as: UTF8.self) == #"{"type":"subscribe","board":"b","since":{"epoch":"e","rev":4}}"#)
        let add = ClientRequest.action(.addSection(SectionDraft(title: "T", items: [.string("a")]), at: 1), board: "b", id: "fs1")
        #expect(String(decoding: add, as: UTF8.self)
                == #"{"type":"addSection","board":"b","id":"fs1","section":{"title":"T","items":["a"]},"at":1}"#)
        // What the client sends, the daemon's own decoder reads back as the same action.
        let actions: [Action] = [
            .toggle(section: "s1"), .expand(section: "s1"), .collapse(section: "s1"), .expandAll, .collapseAll,
            .setMode(.multi), .addSection(SectionDraft(id: "n", title: "T", items: [.string("a")], expanded: true), at: 0),
            .removeSection(section: "s2"), .moveSection(section: "s0", to: 2), .setTitle(section: "s0", title: "分组"),
            .setItems(section: "s1", items: [.string("x")]), .replace(.initial), .revert(rev: 3),
            .focus(section: "s1", item: 1), .clearFocus,
        ]
        // Every name in the table, so a new action cannot miss the client's encoder.
        #expect(Set(actions.map(\.kind)) == Set(ActionName.allCases))
        for action in actions {
            let json = try JSONParser.parse(ClientRequest.action(action, board: "b", id: "i"))
            let decoded = try ClientMessage.decode(json, limits: .defaults).get()
            #expect(decoded == .action(ActionRequest(id: "i", board: "b", action: action)))
        }
        for following in [true, false] {
            let view = try ClientMessage.decode(JSONParser.parse(ClientRequest.view(following: following)), limits: .defaults).get()
            #expect(view == .view(following: following))
        }
    }
}
