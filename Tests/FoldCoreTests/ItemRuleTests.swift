import Testing
@testable import FoldCore

/// Typed items (an extension): every field, every wrong type, every rule.
@Suite struct ItemRuleTests {
    func code(_ items: [JSON], limits: Limits = .defaults) -> ErrorCode? {
        errorCode { () throws(FoldError) in try Board.checkItems(items, limits: limits) }
    }

    func message(_ items: [JSON]) -> String? {
        do throws(FoldError) {
            try Board.checkItems(items, limits: .defaults)
            return nil
        } catch {
            return error.message
        }
    }

    func item(_ fields: [(String, JSON)]) -> JSON { .object(JSONObject([("label", .string("L"))] + fields)) }

    @Test func everyFieldIsAccepted() {
        let full = item([("detail", .string("second line")), ("href", .string("https://example.com/a?b=c#d")),
                         ("badge", .string("new")), ("id", .string("it-1")), ("mine", .array([.int(1)]))])
        #expect(code([.string("plain"), full, item([("href", .string("mailto:a@example.com"))]),
                      item([("href", .string("HTTP://example.com"))]), .string("")]) == nil)
        #expect(Item(full) == Item(label: "L", detail: "second line", href: "https://example.com/a?b=c#d", badge: "new", id: "it-1"))
        #expect(Item(.string("x")) == Item(label: "x"))
    }

    @Test func mistypedFieldsAreBadRequests() {
        for name in Item.fields {
            for wrong: JSON in [.null, .int(1), .bool(true), .array([]), .object([:])] {
                let bad: JSON = name == "label"
                    ? .object(JSONObject([("label", wrong)]))
                    : item([(name, wrong)])
                #expect(code([.string("ok"), bad]) == .badRequest, "\(name): \(wrong)")
                #expect(message([.string("ok"), bad])?.contains("'\(name)' of item 1") == true)
            }
        }
        #expect(code([.object(["detail": .string("no label")])]) == .badRequest)
        for wrong: JSON in [.null, .int(3), .bool(false), .array([.string("a")])] {
            #expect(code([wrong]) == .badRequest)
        }
    }

    @Test(arguments: [
        "javascript:alert(1)", "JavaScript:alert(1)", "data:text/html,<script>alert(1)</script>", "vbscript:x",
        "ftp://example.com", "file:///etc/passwd", "/relative", "example.com", "//example.com", "http:/one-slash",
        "https://", "https:///path", "mailto:", ":nothing", " javascript:alert(1)", "java\tscript:alert(1)",
        "java\nscript:alert(1)", "https://exa mple.com", "https://example.com/\u{7F}", "1http://x",
        // Beyond ASCII: a C1 control (CSI, for a terminal that prints the link), Unicode
        // spaces and line breaks, and invisible formatting (a byte-order mark, a bidi override).
        "https://example.com/\u{9B}31m", "https://example.com/a\u{A0}b", "https://example.com/\u{2028}",
        "https://example.com/\u{3000}", "\u{FEFF}https://example.com", "https://example.com/\u{202E}gpj.exe",
        "https://exa\u{200B}mple.com",
    ])
    func linksOutsideHttpHttpsMailtoAreInvalid(href: String) {
        #expect(!Link.isAllowed(href))
        let items = [item([("href", .string(href))])]
        #expect(code(items) == .invalid)
        #expect(message(items)?.contains("'href'") == true)
        // Shown without the link, never refused: clients read what a daemon sent.
        #expect(Item(items[0]).href == nil)
        #expect(Item(items[0]).label == "L")
    }

    @Test func idsFollowTheSectionIdRuleAndAreUniqueInTheSection() {
        #expect(code([item([("id", .string("a"))]), item([("id", .string("b"))]), .string("a")]) == nil)
        #expect(code([item([("id", .string("a"))]), item([("id", .string("a"))])]) == .invalid)
        #expect(message([item([("id", .string("a"))]), item([("id", .string("a"))])])?.contains("duplicate") == true)
        for bad in ["", "has space", "ü", String(repeating: "x", count: 65), "a/b"] {
            #expect(code([item([("id", .string(bad))])]) == .invalid, "\(bad)")
        }
        // Unique within a section, not across sections.
        let a = Section(id: "a", title: "A", items: [item([("id", .string("x"))])])
        let b = Section(id: "b", title: "B", items: [item([("id", .string("x"))])])
        #expect(errorCode { () throws(FoldError) in try Board(mode: .multi, sections: [a, b]).validate(limits: .defaults) } == nil)
    }

    @Test func sizesAreBounded() {
        #expect(code([item([("badge", .string(String(repeating: "b", count: Item.maxBadgeBytes)))])]) == nil)
        #expect(code([item([("badge", .string(String(repeating: "b", count: Item.maxBadgeBytes + 1)))])]) == .invalid)
        var limits = Limits()
        limits.maxItemBytes = 40
        #expect(code([item([("detail", .string(String(repeating: "d", count: 40)))])], limits: limits) == .invalid)
        #expect(code([item([("href", .string("https://example.com/" + String(repeating: "p", count: 40)))])], limits: limits) == .invalid)
        #expect(code([item([("detail", .string("short"))])], limits: limits) == nil)
        limits = Limits()
        limits.maxItems = 1
        #expect(code([.string("a"), .string("b")], limits: limits) == .invalid)
    }

    @Test func documentsAreCheckedTheSameWay() throws {
        let doc = #"{"mode":"multi","sections":[{"id":"a","title":"A","expanded":true,"items":[{"label":"x","href":"javascript:alert(1)"}]}]}"#
        #expect(errorCode { () throws(FoldError) in _ = try Board(json: try! parse(doc), limits: .defaults) } == .invalid)
        // What a store holds is read as it is (it was accepted once, or written around the daemon).
        let stored = try Board(trusted: parse(doc))
        #expect(stored.sections[0].items[0]["href"]?.stringValue == "javascript:alert(1)")
        let typed = #"{"mode":"multi","sections":[{"id":"a","title":"A","expanded":true,"items":[{"label":"x","badge":7}]}]}"#
        #expect(errorCode { () throws(FoldError) in _ = try Board(json: try! parse(typed), limits: .defaults) } == .badRequest)
    }

    @Test func anItemWithOnlyALabelIsAString() {
        #expect(Item(label: "a").json == .string("a"))
        #expect(Item(label: "a", id: "i").json == .object(JSONObject([("label", .string("a")), ("id", .string("i"))])))
        #expect(Item(.object(["label": .int(1)])).label == #"{"label":1}"#)
    }
}
