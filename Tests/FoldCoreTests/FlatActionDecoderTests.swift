import FoldCore
import FoldTestSupport
import Testing

/// `FlatActionDecoder` beside the general decoding (`JSONParser` then
/// `ClientMessage.decode`): what it accepts, the general path decodes to the
/// same request; what it leaves, the general path still reads (or refuses).
@Suite struct FlatActionDecoderTests {
    static func general(_ text: String) -> ClientMessage? {
        guard let json = try? JSONParser.parse(Array(text.utf8)) else { return nil }
        if case .success(let m) = ClientMessage.decode(json, limits: Limits()) { return m }
        return nil
    }

    static func flat(_ text: String) -> ActionRequest? {
        Array(text.utf8).withUnsafeBytes { FlatActionDecoder.decode($0) }
    }

    @Test(arguments: [
        #"{"type":"toggle","section":"s1","board":"default","id":"7"}"#,
        #"{"type":"setTitle","section":"s3","title":"w12:345","board":"b-1","id":"345","key":"b0123456789abcdef-12-345"}"#,
        #" { "board" : "x" , "type" : "expand" , "section" : "a b" } "#,
        "{\n\t\"type\":\"collapse\",\r\n\"section\":\"s0\",\"board\":\"d\"}",
        #"{"type":"expandAll","board":"d","ifRev":0}"#,
        #"{"type":"collapseAll","board":"d","ifRev":123456789012345678}"#,
        #"{"type":"clearFocus","board":"d","key":"~ !#$%&'()*+,-./:;<=>?@[]^_`{|}"}"#,
        #"{"type":"setMode","mode":"multi","board":"d"}"#,
        #"{"type":"setMode","mode":"single","board":"d"}"#,
        #"{"type":"removeSection","section":"s9","board":"d"}"#,
        #"{"type":"moveSection","section":"s9","to":-1,"board":"d"}"#,
        #"{"type":"moveSection","section":"s9","to":0,"board":"d"}"#,
        #"{"type":"focus","section":"s1","item":3,"board":"d"}"#,
        #"{"type":"revert","rev":12,"board":"d","id":""}"#,
        #"{"type":"toggle","section":"","board":"d"}"#,
        #"{"type":"toggle","section":"s1","board":"d","title":"ignored","rev":5,"mode":"x","to":1,"item":2}"#,
        #"{"type":"revert","rev":-0,"board":"d"}"#,
    ])
    func whatItReadsTheGeneralPathReadsAlike(text: String) throws {
        let request = try #require(Self.flat(text), "the flat decoder left \(text)")
        #expect(Self.general(text) == .action(request))
    }

    @Test(arguments: [
        #"{"type":"toggle","section":"s\u0031","board":"d"}"#,  // an escape
        #"{"type":"setTitle","section":"s1","title":"Zürich","board":"d"}"#,  // beyond ASCII
        #"{"type":"toggle","section":"s1","board":"d","extra":1}"#,  // an unknown member
        #"{"type":"toggle","section":"s1","section":"s2","board":"d"}"#,  // a repeat
        #"{"type":"toggle","section":"s1","board":"d","ifRev":1.0}"#,
        #"{"type":"toggle","section":"s1","board":"d","ifRev":1e2}"#,
        #"{"type":"toggle","section":"s1","board":"d","ifRev":01}"#,
        #"{"type":"toggle","section":"s1","board":"d","ifRev":-1}"#,
        #"{"type":"toggle","section":"s1","board":"d","ifRev":1234567890123456789}"#,
        #"{"type":"moveSection","section":"s1","board":"d","to":99999999999999999999}"#,  // past Int: no overflow
        #"{"type":"moveSection","section":"s1","board":"d","to":-99999999999999999999}"#,
        #"{"type":"revert","board":"d","rev":\#(String(repeating: "9", count: 400))}"#,
        #"{"type":"toggle","section":"s1","board":"d","id":null}"#,
        #"{"type":"toggle","section":"s1","board":"d","id":7}"#,
        #"{"type":"toggle","section":true,"board":"d"}"#,
        #"{"type":"toggle","board":"d"}"#,
        #"{"type":"toggle","section":"s1"}"#,
        #"{"type":"toggle","section":"s1","board":"no spaces"}"#,
        #"{"type":"toggle","section":"s1","board":"d","key":""}"#,
        #"{"type":"toggle","section":"s1","board":"d","key":"\#(String(repeating: "k", count: 65))"}"#,
        "{\"type\":\"toggle\",\"section\":\"s1\",\"board\":\"d\",\"key\":\"a\u{7F}\"}",
        #"{"type":"setMode","mode":"both","board":"d"}"#,
        #"{"type":"subscribe","board":"d"}"#,
        #"{"type":"settle","board":"d","key":"k"}"#,
        #"{"type":"addSection","section":{"title":"t"},"board":"d"}"#,
        #"{"type":"setItems","section":"s1","items":[],"board":"d"}"#,
        #"{"type":"toggle","section":"s1","board":"d"} x"#,
        #"{"type":"toggle","section":"s1","board":"d",}"#,
        #"{"type":"toggle","section":"s1","board":"d""#,
        #"{}"#, "", "[]", #""toggle""#,
    ])
    func whatItLeavesGoesTheGeneralWay(text: String) {
        #expect(Self.flat(text) == nil)
    }

    /// Messages built from members in random order, with values good and
    /// bad: whenever the flat decoder answers, the general path gives the
    /// same request; and it answers for every flat action the general path
    /// accepts whose strings are plain ASCII.
    @Test func randomMessagesDecodeAlike() {
        var rng = SplitMix64(seed: 0xF1A7)
        let types = ["toggle", "expand", "collapse", "expandAll", "collapseAll", "setMode", "removeSection", "moveSection",
                     "setTitle", "focus", "clearFocus", "revert", "subscribe", "nope", "addSection"]
        let strings = [#""s1""#, #""""#, #""a b""#, #""x\"y""#, #""é""#, #""k-0123456789abcdef-1""#, "7", "-3", "0", "01",
                       "1.5", "true", "null", "123456789012345678", "9999999999999999999", "-99999999999999999999", #""single""#, #""multi""#, #""d""#, #""bad name""#, "[]", "{}"]
        let names = ["type", "board", "id", "key", "ifRev", "section", "title", "mode", "to", "item", "rev", "other"]
        var flat = 0, general = 0
        for _ in 0..<20_000 {
            var members: [String] = []
            members.append(#""type":"# + "\"\(types[Int.random(in: 0..<types.count, using: &rng)])\"")
            if Int.random(in: 0..<10, using: &rng) > 0 { members.append(#""board":"d""#) }
            for _ in 0..<Int.random(in: 0...5, using: &rng) {
                let name = names[Int.random(in: 0..<names.count, using: &rng)]
                let value = strings[Int.random(in: 0..<strings.count, using: &rng)]
                members.append("\"\(name)\":\(value)")
            }
            members.shuffle(using: &rng)
            let text = "{" + members.joined(separator: Bool.random(using: &rng) ? "," : " , ") + "}"
            let f = Self.flat(text), g = Self.general(text)
            if let f {
                flat += 1
                #expect(g == .action(f), "\(text)")
            }
            if case .action(let r)? = g {
                general += 1
                let plain = text.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F } && !text.contains("\\") && !text.contains("\"other\"")
                    && !text.contains(".5") && !text.contains(":01") && !text.contains("9999999999999999999") && !text.contains("true") && !text.contains("null")
                    && !text.contains("[]") && !text.contains("{}")
                let once = Set(members.map { $0.prefix { $0 != ":" } }).count == members.count
                if plain && once, !["addSection", "setItems", "replace"].contains(r.action.name) {
                    #expect(f != nil, "left a flat action: \(text)")
                }
            }
        }
        #expect(flat > 500 && general > flat, "flat \(flat), general \(general)")
    }

    /// Valid messages with bytes changed, put in and cut out (digits, quotes,
    /// signs, escapes, bytes past ASCII): the decoder never traps, and what it
    /// accepts the general path reads alike.
    @Test func mutatedMessagesNeverTrapAndDecodeAlike() {
        var rng = SplitMix64(seed: 0xB17E)
        let seeds = [#"{"type":"moveSection","section":"s9","to":-1,"board":"d","key":"k-1"}"#,
                     #"{"type":"setTitle","section":"s3","title":"w12:345","board":"b-1","id":"345","ifRev":7}"#,
                     #"{"type":"focus","section":"s1","item":3,"board":"d"}"#]
        let bytes: [UInt8] = Array("0123456789-+.eE\"\\{}[],: xu".utf8) + [0x00, 0x1F, 0x7F, 0xC3, 0xFF]
        var accepted = 0
        for _ in 0..<20_000 {
            var b = Array(seeds[Int.random(in: 0..<seeds.count, using: &rng)].utf8)
            for _ in 0...Int.random(in: 0..<4, using: &rng) {
                let at = Int.random(in: 0..<b.count, using: &rng), x = bytes[Int.random(in: 0..<bytes.count, using: &rng)]
                switch Int.random(in: 0..<4, using: &rng) {
                case 0: b[at] = x
                case 1: b.insert(x, at: at)
                case 2: b.insert(contentsOf: repeatElement(UInt8(ascii: "9"), count: Int.random(in: 1...30, using: &rng)), at: at)
                default: b.removeSubrange(at..<min(b.count, at + Int.random(in: 1...8, using: &rng)))
                }
                if b.isEmpty { b = [UInt8(ascii: "{")] }
            }
            guard let f = b.withUnsafeBytes({ FlatActionDecoder.decode($0) }) else { continue }
            accepted += 1
            let g = (try? JSONParser.parse(b)).flatMap { json -> ClientMessage? in
                if case .success(let m) = ClientMessage.decode(json, limits: Limits()) { return m }
                return nil
            }
            #expect(g == .action(f), "\(String(decoding: b, as: UTF8.self))")
        }
        #expect(accepted > 300, "accepted \(accepted)")
    }
}
