import Testing
@testable import FoldCore

@Suite struct JSONParserTests {
    @Test func parsesScalarsAndContainers() throws {
        #expect(try parse("null") == .null)
        #expect(try parse(" true ") == .bool(true))
        #expect(try parse("false") == .bool(false))
        #expect(try parse("-0.5e+3") == .number("-0.5e+3"))
        #expect(try parse("\"a\\u00e9\\n\"") == .string("aé\n"))
        #expect(try parse("[1, [2], {}]") == .array([.number("1"), .array([.number("2")]), .object([:])]))
        let object = try parse("{\"b\":1,\"a\":{\"c\":[]}}")
        #expect(object.objectValue?.keys == ["b", "a"])
        #expect(object["a"]?["c"] == .array([]))
    }

    @Test func keepsNumberText() throws {
        #expect(try parse("1e400") == .number("1e400"))
        #expect(try parse("99999999999999999999").intValue == nil)
        #expect(try parse("-12").intValue == -12)
        #expect(try parse("1.0").intValue == nil)
        #expect(try parse("1") == parse("1.0"))
        #expect(try parse("100") == parse("1e2"))
        #expect(try parse("1") != parse("2"))
    }

    @Test func objectEqualityIgnoresOrder() throws {
        #expect(try parse("{\"a\":1,\"b\":[true]}") == parse("{\"b\":[true],\"a\":1}"))
        #expect(try parse("{\"a\":1}") != parse("{\"a\":1,\"b\":2}"))
    }

    @Test func decodesSurrogatePairs() throws {
        #expect(try parse("\"\\ud83d\\ude00\"") == .string("😀"))
        #expect(try parse("\"😀 é\"") == .string("😀 é"))
    }

    @Test(arguments: [
        "", " ", "[1,]", "{\"a\":1,}", "[1 2]", "{\"a\" 1}", "{a:1}", "01", "-", "1.", ".5", "1e", "+1",
        "NaN", "Infinity", "-Infinity", "tru", "nul", "[1] x", "// c\n1", "/* c */ 1", "'a'",
        "\"\\x\"", "\"\\u12\"", "\"\\ud800\"", "\"\\udc00\"", "\"\\ud800\\u0041\"", "\"abc", "[",
        "{\"a\":1,\"a\":2}", "\"a\tb\"", "\"a\nb\"", "\u{0C}1", "[1]\u{00A0}", "-01", "00",
    ])
    func rejectsInvalid(_ input: String) {
        #expect(throws: JSONError.self) { try parse(input) }
    }

    @Test func rejectsInvalidUTF8() {
        let cases: [[UInt8]] = [
            [0x22, 0xFF, 0x22], [0x22, 0xC0, 0x80, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22],
            [0x22, 0xE2, 0x82, 0x22], [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], [0x22, 0x80, 0x22],
            [0x22, 0xE0, 0x80, 0x80, 0x22],
        ]
        for bytes in cases {
            #expect(throws: JSONError.self) { try JSONParser.parse(bytes) }
        }
    }

    @Test func reportsOffsets() {
        do throws(JSONError) {
            _ = try JSONParser.parse(Array("[\"ab\\q\"]".utf8))
            Issue.record("expected an error")
        } catch {
            #expect(error.offset == 4)
            #expect(error.message == "invalid escape at byte 4")
        }
    }

    @Test func enforcesDepth() throws {
        let ok = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        #expect(throws: Never.self) { try parse(ok) }
        let deep = String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
        #expect(throws: JSONError.self) { try parse(deep) }
        #expect(throws: JSONError.self) { try parse("{\"a\":{\"b\":{}}}", maxDepth: 2) }
        let huge = String(repeating: "[", count: 100_000)
        #expect(throws: JSONError.self) { try parse(huge) }
    }

    @Test func duplicateKeysOnlyWhenAllowed() throws {
        let bytes = Array("{\"a\":1,\"a\":2}".utf8)
        #expect(throws: JSONError.self) { try JSONParser.parse(bytes) }
        #expect(try JSONParser.parse(bytes, allowDuplicateKeys: true) == .object(["a": .number("2")]))
    }

    @Test func parsesFromRawBuffersAndSlices() throws {
        let bytes = Array("  {\"x\":[1,2]} ".utf8)
        let viaRaw = try bytes.withUnsafeBytes { raw throws(JSONError) in try JSONParser.parse(raw) }
        #expect(viaRaw == .object(["x": .array([.number("1"), .number("2")])]))
        #expect(try JSONParser.parse(bytes[2...]) == viaRaw)
    }

    @Test func bigObjectsKeepOrderAndLookups() throws {
        let keys = (0..<200).map { "k\($0)" }
        let source = "{" + keys.map { "\"\($0)\":\($0.dropFirst())" }.joined(separator: ",") + "}"
        var object = try #require(try parse(source).objectValue)
        #expect(object.keys == keys)
        #expect(object["k150"] == .number("150"))
        object.removeValue(forKey: "k10")
        #expect(object["k10"] == nil)
        #expect(object["k199"] == .number("199"))
        #expect(object.count == 199)
    }
}
