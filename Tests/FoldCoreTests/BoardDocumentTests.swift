import Testing
@testable import FoldCore

@Suite struct BoardDocumentTests {
    static let initialText = "{\"mode\":\"single\",\"sections\":["
        + "{\"id\":\"s0\",\"title\":\"0\",\"items\":[\"1\",\"2\"],\"expanded\":false},"
        + "{\"id\":\"s1\",\"title\":\"1\",\"items\":[\"222\",\"333\"],\"expanded\":false},"
        + "{\"id\":\"s2\",\"title\":\"2\",\"items\":[\"33333\",\"44444\"],\"expanded\":false}]}"

    @Test func initialBoardIsTheContractDefault() throws {
        #expect(text(Board.initial.encoded()) == Self.initialText)
        #expect(Board.initial.json.encoded() == Board.initial.encoded())
        #expect(Board.initial.encodedByteCount() == Board.initial.encoded().count)
        #expect(try Board(json: parse(Self.initialText), limits: .defaults) == .initial)
    }

    @Test func byteCountMatchesEncoding() {
        var board = bigBoard(sections: 20, itemsPerSection: 3, mode: .multi)
        board.sections[3].title = "tab\t\"q\" \u{2028}"
        board.sections[4].items = [.object(["label": .string("x"), "n": .number("1.5")])]
        board.sections[5].expanded = true
        #expect(board.encodedByteCount() == board.encoded().count)
        #expect(Board(mode: .multi, sections: []).encodedByteCount() == Board(mode: .multi, sections: []).encoded().count)
    }

    @Test func ignoresUnknownFieldsAndDoesNotStoreThem() throws {
        let source = "{\"mode\":\"multi\",\"extra\":1,\"sections\":[{\"id\":\"a\",\"title\":\"A\",\"items\":[{\"label\":\"L\",\"k\":2}],\"expanded\":true,\"color\":\"red\"}]}"
        let board = try Board(json: parse(source), limits: .defaults)
        #expect(text(board.encoded()) == "{\"mode\":\"multi\",\"sections\":[{\"id\":\"a\",\"title\":\"A\",\"items\":[{\"label\":\"L\",\"k\":2}],\"expanded\":true}]}")
    }

    static let badRequests: [String] = [
        "[]", "{\"sections\":[]}", "{\"mode\":\"both\",\"sections\":[]}", "{\"mode\":1,\"sections\":[]}",
        "{\"mode\":\"single\"}", "{\"mode\":\"single\",\"sections\":{}}", "{\"mode\":\"single\",\"sections\":[1]}",
        "{\"mode\":\"single\",\"sections\":[{\"title\":\"t\",\"items\":[],\"expanded\":false}]}",
        "{\"mode\":\"single\",\"sections\":[{\"id\":\"a\",\"items\":[],\"expanded\":false}]}",
        "{\"mode\":\"single\",\"sections\":[{\"id\":\"a\",\"title\":\"t\",\"expanded\":false}]}",
        "{\"mode\":\"single\",\"sections\":[{\"id\":\"a\",\"title\":\"t\",\"items\":[]}]}",
        "{\"mode\":\"single\",\"sections\":[{\"id\":\"a\",\"title\":\"t\",\"items\":[],\"expanded\":0}]}",
        "{\"mode\":\"single\",\"sections\":[{\"id\":\"a b\",\"title\":\"t\",\"items\":[],\"expanded\":false}]}",
        "{\"mode\":\"single\",\"sections\":[{\"id\":\"a\",\"title\":\"t\",\"items\":[1],\"expanded\":false}]}",
        "{\"mode\":\"single\",\"sections\":[{\"id\":\"a\",\"title\":\"t\",\"items\":[{\"label\":1}],\"expanded\":false}]}",
    ]

    @Test(arguments: badRequests)
    func malformedDocumentsAreBadRequests(_ source: String) throws {
        let json = try parse(source)
        #expect(errorCode { () throws(FoldError) in _ = try Board(json: json, limits: .defaults) } == .badRequest)
    }

    @Test func ruleViolationsAreInvalid() throws {
        func code(_ board: Board, _ limits: Limits = .defaults) -> ErrorCode? {
            errorCode { () throws(FoldError) in _ = try Board(json: board.json, limits: limits) }
        }
        var twoOpen = Board.initial
        twoOpen.sections[0].expanded = true
        twoOpen.sections[1].expanded = true
        #expect(code(twoOpen) == .invalid)
        twoOpen.mode = .multi
        #expect(code(twoOpen) == nil)

        var duplicate = Board.initial
        duplicate.sections[1].id = "s0"
        #expect(code(duplicate) == .invalid)

        var limits = Limits()
        limits.maxSections = 2
        #expect(code(.initial, limits) == .invalid)
        limits = Limits()
        limits.maxItems = 1
        #expect(code(.initial, limits) == .invalid)
        limits = Limits()
        limits.maxTitleBytes = 0
        #expect(code(.initial, limits) == .invalid)
        limits = Limits()
        limits.maxItemBytes = 4
        #expect(code(.initial, limits) == .invalid)
        limits = Limits()
        limits.maxBoardBytes = Board.initial.encoded().count - 1
        #expect(code(.initial, limits) == .invalid)
        limits.maxBoardBytes += 1
        #expect(code(.initial, limits) == nil)
    }

    @Test func namesAndLimits() {
        #expect(Names.isValid("default"))
        #expect(Names.isValid("A-z_0.9"))
        #expect(Names.isValid(String(repeating: "x", count: 64)))
        #expect(!Names.isValid(String(repeating: "x", count: 65)))
        #expect(!Names.isValid(""))
        #expect(!Names.isValid("a/b"))
        #expect(!Names.isValid("é"))
        #expect(Limits.defaults.maxBoards == 1_000)
        #expect(Limits.defaults.maxBoardBytes == 4_194_304)
        #expect(ErrorCode.allCases.map(\.httpStatus) == [400, 400, 404, 409, 422, 403, 413, 429, 500, 410])
    }
}
