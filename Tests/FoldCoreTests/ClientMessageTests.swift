import Testing
@testable import FoldCore

@Suite struct ClientMessageTests {
    func decode(_ source: String, limits: Limits = .defaults) throws -> Result<ClientMessage, WireError> {
        ClientMessage.decode(try parse(source), limits: limits)
    }

    func message(_ source: String) throws -> ClientMessage {
        try decode(source).get()
    }

    func failure(_ source: String) throws -> WireError? {
        if case .failure(let e) = try decode(source) { return e }
        return nil
    }

    func action(_ fields: String, id: String? = nil, ifRev: Int? = nil) throws -> Action? {
        guard case .action(let request) = try message("{\"board\":\"b\",\(fields)}") else { return nil }
        #expect(request.board == "b")
        return request.action
    }

    @Test func sessionMessages() throws {
        #expect(try message("{\"type\":\"subscribe\",\"board\":\"default\"}") == .subscribe(board: "default", since: nil))
        #expect(try message("{\"type\":\"subscribe\",\"board\":\"b\",\"since\":{\"epoch\":\"e1\",\"rev\":7},\"x\":1}")
            == .subscribe(board: "b", since: Position(epoch: "e1", rev: 7)))
        #expect(try message("{\"type\":\"unsubscribe\",\"board\":\"b\"}") == .unsubscribe(board: "b"))
        #expect(try message("{\"type\":\"auth\",\"token\":\"t0k\"}") == .auth(token: "t0k"))
    }

    @Test func everyAction() throws {
        #expect(try action("\"type\":\"toggle\",\"section\":\"s1\"") == .toggle(section: "s1"))
        #expect(try action("\"type\":\"expand\",\"section\":\"s1\"") == .expand(section: "s1"))
        #expect(try action("\"type\":\"collapse\",\"section\":\"s1\"") == .collapse(section: "s1"))
        #expect(try action("\"type\":\"expandAll\"") == .expandAll)
        #expect(try action("\"type\":\"collapseAll\"") == .collapseAll)
        #expect(try action("\"type\":\"setMode\",\"mode\":\"multi\"") == .setMode(.multi))
        #expect(try action("\"type\":\"addSection\",\"section\":{\"title\":\"T\"}")
            == .addSection(SectionDraft(title: "T"), at: nil))
        #expect(try action("\"type\":\"addSection\",\"section\":{\"id\":\"x\",\"title\":\"T\",\"items\":[\"a\"],\"expanded\":true},\"at\":1")
            == .addSection(SectionDraft(id: "x", title: "T", items: [.string("a")], expanded: true), at: 1))
        #expect(try action("\"type\":\"removeSection\",\"section\":\"s1\"") == .removeSection(section: "s1"))
        #expect(try action("\"type\":\"moveSection\",\"section\":\"s1\",\"to\":0") == .moveSection(section: "s1", to: 0))
        #expect(try action("\"type\":\"setTitle\",\"section\":\"s1\",\"title\":\"t\"") == .setTitle(section: "s1", title: "t"))
        #expect(try action("\"type\":\"setItems\",\"section\":\"s1\",\"items\":[]") == .setItems(section: "s1", items: []))
        let state = text(Board.initial.encoded())
        #expect(try action("\"type\":\"replace\",\"state\":\(state)") == .replace(.initial))
    }

    @Test func idAndIfRevAreCarried() throws {
        let m = try message("{\"type\":\"toggle\",\"board\":\"b\",\"section\":\"s\",\"id\":\"42\",\"ifRev\":3}")
        #expect(m == .action(ActionRequest(id: "42", board: "b", ifRev: 3, action: .toggle(section: "s"))))
    }

    @Test func badRequests() throws {
        let cases: [(String, String?)] = [
            ("[]", nil), ("{}", nil), ("{\"type\":1}", nil),
            ("{\"type\":\"toggle\",\"board\":\"b\"}", "section"),
            ("{\"type\":\"toggle\",\"board\":\"b\",\"section\":5}", "section"),
            ("{\"type\":\"toggle\",\"section\":\"s\"}", "board"),
            ("{\"type\":\"toggle\",\"board\":\"bad name\",\"section\":\"s\"}", "board"),
            ("{\"type\":\"subscribe\",\"board\":7}", "board"),
            ("{\"type\":\"subscribe\",\"board\":\"b\",\"since\":{\"epoch\":\"e\"}}", "rev"),
            ("{\"type\":\"subscribe\",\"board\":\"b\",\"since\":{\"epoch\":\"e\",\"rev\":-1}}", "rev"),
            ("{\"type\":\"subscribe\",\"board\":\"b\",\"since\":3}", "since"),
            ("{\"type\":\"auth\"}", "token"),
            ("{\"type\":\"setMode\",\"board\":\"b\",\"mode\":\"all\"}", "mode"),
            ("{\"type\":\"moveSection\",\"board\":\"b\",\"section\":\"s\"}", "to"),
            ("{\"type\":\"moveSection\",\"board\":\"b\",\"section\":\"s\",\"to\":1.5}", "to"),
            ("{\"type\":\"moveSection\",\"board\":\"b\",\"section\":\"s\",\"to\":1e400}", "to"),
            ("{\"type\":\"moveSection\",\"board\":\"b\",\"section\":\"s\",\"to\":99999999999999999999}", "to"),
            ("{\"type\":\"addSection\",\"board\":\"b\",\"section\":{\"title\":\"t\"},\"at\":\"1\"}", "at"),
            ("{\"type\":\"addSection\",\"board\":\"b\",\"section\":{}}", "title"),
            ("{\"type\":\"addSection\",\"board\":\"b\",\"section\":\"x\"}", "section"),
            ("{\"type\":\"addSection\",\"board\":\"b\",\"section\":{\"title\":\"t\",\"expanded\":1}}", "expanded"),
            ("{\"type\":\"addSection\",\"board\":\"b\",\"section\":{\"title\":\"t\",\"items\":{}}}", "items"),
            ("{\"type\":\"setTitle\",\"board\":\"b\",\"section\":\"s\"}", "title"),
            ("{\"type\":\"setItems\",\"board\":\"b\",\"section\":\"s\",\"items\":\"x\"}", "items"),
            ("{\"type\":\"toggle\",\"board\":\"b\",\"section\":\"s\",\"ifRev\":-1}", "ifRev"),
            ("{\"type\":\"toggle\",\"board\":\"b\",\"section\":\"s\",\"ifRev\":\"1\"}", "ifRev"),
            ("{\"type\":\"toggle\",\"board\":\"b\",\"section\":\"s\",\"id\":5}", "id"),
            ("{\"type\":\"replace\",\"board\":\"b\"}", "state"),
            ("{\"type\":\"replace\",\"board\":\"b\",\"state\":{\"mode\":\"single\"}}", "sections"),
        ]
        for (source, field) in cases {
            let error = try #require(try failure(source), "\(source)")
            #expect(error.code == .badRequest, "\(source)")
            if let field { #expect(error.message.contains("'\(field)'"), "\(source): \(error.message)") }
        }
        #expect(try failure("{\"type\":\"toggle\",\"board\":\"b\",\"section\":5}")?.message == "field 'section' must be a string")
    }

    @Test func errorsEchoIdAndBoard() throws {
        let e = try #require(try failure("{\"type\":\"toggle\",\"board\":\"b\",\"id\":\"r1\"}"))
        #expect(e.id == "r1")
        #expect(e.board == "b")
        let unknown = try #require(try failure("{\"type\":\"dance\",\"id\":\"r2\",\"board\":\"b\"}"))
        #expect(unknown.code == .unknownType)
        #expect(unknown.id == "r2")
        #expect(try failure("{\"type\":\"toggle\",\"board\":\"no/pe\",\"id\":\"r3\",\"section\":\"s\"}")?.board == nil)
    }

    @Test func replaceStateRulesAreInvalid() throws {
        var board = Board.initial
        board.sections[0].expanded = true
        board.sections[1].expanded = true
        let e = try #require(try failure("{\"type\":\"replace\",\"board\":\"b\",\"id\":\"q\",\"state\":\(text(board.encoded()))}"))
        #expect(e.code == .invalid)
        #expect(e.id == "q")
    }

    @Test func httpActionBodies() throws {
        let body = try parse("{\"type\":\"setTitle\",\"section\":\"s0\",\"title\":\"x\",\"board\":\"other\",\"ifRev\":2}")
        let request = try ActionRequest.decode(body, board: "default", limits: .defaults).get()
        #expect(request == ActionRequest(board: "default", ifRev: 2, action: .setTitle(section: "s0", title: "x")))
        let subscribe = try parse("{\"type\":\"subscribe\"}")
        if case .failure(let e) = ActionRequest.decode(subscribe, board: "default", limits: .defaults) {
            #expect(e.code == .unknownType)
        } else {
            Issue.record("subscribe is not an action")
        }
        if case .failure(let e) = ActionRequest.decode(try parse("{\"type\":\"expandAll\"}"), board: "bad name", limits: .defaults) {
            #expect(e.code == .badRequest)
        } else {
            Issue.record("bad board name accepted")
        }
    }
}
