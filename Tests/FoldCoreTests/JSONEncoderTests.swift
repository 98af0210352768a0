import Testing
@testable import FoldCore

@Suite struct JSONEncoderTests {
    @Test func compactAndOrdered() throws {
        let value = try parse("{ \"b\" : [1, 2.50, null], \"a\" : {\"t\": true, \"f\": false} }")
        #expect(text(value.encoded()) == "{\"b\":[1,2.50,null],\"a\":{\"t\":true,\"f\":false}}")
    }

    @Test func escapesStrings() {
        let s = "q\"b\\n\nr\rt\tb\u{08}f\u{0C}c\u{01}\u{1F}ls\u{2028}ps\u{2029}é😀/"
        let out = text(JSON.string(s).encoded())
        #expect(out == "\"q\\\"b\\\\n\\nr\\rt\\tb\\bf\\fc\\u0001\\u001fls\\u2028ps\\u2029é😀/\"")
        #expect(JSON.string(s).encodedByteCount() == JSON.string(s).encoded().count)
    }

    @Test func roundTrips() throws {
        let source = "{\"s\":\"\\u0000\\u2028x\",\"n\":[-0,1e400,0.25],\"o\":{\"\":[[],{}]},\"u\":\"日本\"}"
        let value = try parse(source)
        let again = try JSONParser.parse(value.encoded())
        #expect(again == value)
        #expect(again.encoded() == value.encoded())
        #expect(value.encodedByteCount() == value.encoded().count)
    }

    @Test func neverEmitsRawNewlines() throws {
        var rng = SplitMix64(seed: 42)
        let alphabet: [Character] = ["a", "\n", "\r", "\u{2028}", "\u{2029}", "\"", "\\", "\u{0}", "é", "😀", " ", "\t"]
        for _ in 0..<2_000 {
            let length = Int.random(in: 0..<24, using: &rng)
            let s = String((0..<length).map { _ in alphabet.randomElement(using: &rng)! })
            let value = JSON.object(JSONObject([(s, .array([.string(s)]))]))
            let bytes = value.encoded()
            #expect(!bytes.contains(0x0A))
            #expect(!bytes.contains(0x0D))
            #expect(!text(bytes).contains("\u{2028}"))
            #expect(try JSONParser.parse(bytes) == value)
            #expect(value.encodedByteCount() == bytes.count)
        }
    }

    @Test func appendInt() {
        for n in [0, 7, -7, 10, 1234567890, Int.max, Int.min] {
            var out: [UInt8] = []
            JSONWriter.appendInt(n, to: &out)
            #expect(text(out) == String(n))
        }
    }
}
