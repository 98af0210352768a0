import Testing
@testable import FoldCore

/// An action's `key`: read, checked, and fingerprinted by what the action does.
@Suite struct ActionKeyDecodeTests {
    func decode(_ source: String) throws -> Result<ClientMessage, WireError> {
        ClientMessage.decode(try parse(source), limits: .defaults)
    }

    func key(_ keyJSON: String) throws -> Result<String?, WireError> {
        switch try decode(#"{"type":"toggle","board":"b","section":"s0","id":"7","key":\#(keyJSON)}"#) {
        case .success(.action(let r)): return .success(r.key?.string)
        case .success: return .success(nil)
        case .failure(let e): return .failure(e)
        }
    }

    @Test func aValidKeyIsKept() throws {
        #expect(try key(#""c1f3-17""#).get() == "c1f3-17")
        #expect(try key(#"" ~!""#).get() == " ~!")
        #expect(try key("\"" + String(repeating: "k", count: 64) + "\"").get()?.utf8.count == 64)
    }

    @Test func badKeysAreBadRequestsThatEchoTheID() throws {
        for bad in ["\"\"", "\"" + String(repeating: "k", count: 65) + "\"", #""tab\there""#, #""new\nline""#, #""é""#, "17", "null", #"["k"]"#] {
            guard case .failure(let e) = try key(bad) else {
                Issue.record("key \(bad) was accepted")
                continue
            }
            #expect(e.code == .badRequest && e.id == "7" && e.message.contains("'key'"), "\(bad): \(e)")
        }
    }

    @Test func theHeaderAndTheFieldMustAgree() throws {
        let body = try parse(#"{"type":"toggle","section":"s0","key":"a"}"#)
        #expect(try ActionRequest.decode(body, board: "b", limits: .defaults, idempotencyKey: "a").get().key?.string == "a")
        let plain = try parse(#"{"type":"toggle","section":"s0"}"#)
        #expect(try ActionRequest.decode(plain, board: "b", limits: .defaults, idempotencyKey: "h").get().key?.string == "h")
        for (json, header) in [(body, "b"), (plain, String(repeating: "x", count: 65)), (plain, "bell\u{7}")] {
            guard case .failure(let e) = ActionRequest.decode(json, board: "b", limits: .defaults, idempotencyKey: header) else {
                Issue.record("header \(header) was accepted")
                continue
            }
            #expect(e.code == .badRequest && e.message.contains("Idempotency-Key"), "\(e)")
        }
    }

    @Test func theFingerprintIsTheActionsNotTheEnvelopes() {
        let a = ActionKey.fingerprint(.toggle(section: "s0"))
        #expect(a == ActionKey.fingerprint(.toggle(section: "s0")))
        #expect(a != ActionKey.fingerprint(.toggle(section: "s1")))
        #expect(a != ActionKey.fingerprint(.expand(section: "s0")))
        #expect(ActionKey.fingerprint(.setTitle(section: "s0", title: "x")) != ActionKey.fingerprint(.setTitle(section: "s0", title: "y")))
    }

    /// The fingerprint's fast path writes exactly the bytes of the action's
    /// object (`encodeFields`): a key stored before stays comparable.
    @Test func theFlatFingerprintIsTheObjectsBytes() {
        let odd = "q\"uo\\te \u{1}é😀\n"
        let actions: [Action] = [
            .toggle(section: "s0"), .expand(section: odd), .collapse(section: "c"), .removeSection(section: "r"),
            .expandAll, .collapseAll, .clearFocus, .setMode(.single), .setMode(.multi),
            .moveSection(section: "m", to: 0), .moveSection(section: "m", to: -3), .setTitle(section: "s", title: odd),
            .revert(rev: 123_456_789), .focus(section: "f", item: 7),
        ]
        for action in actions {
            var flat: [UInt8] = []
            #expect(flatBytes(action, to: &flat))
            var o: JSONObject = ["type": .string(action.name)]
            action.encodeFields(into: &o)
            #expect(flat == JSON.object(o).encoded(), "\(action)")
        }
        var none: [UInt8] = []
        #expect(!flatBytes(.setItems(section: "s", items: []), to: &none) && none.isEmpty)
    }

    /// A fingerprint is FNV-1a of those bytes, hashed as they are written or
    /// after: the same for every action, and the same as when the store's
    /// keys were written (the literals, computed from the JSON text alone).
    @Test func theFingerprintIsFNVOfTheObjectsBytes() {
        func fnv(_ bytes: [UInt8]) -> Int64 {
            var h: UInt64 = 0xcbf2_9ce4_8422_2325
            for b in bytes { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01b3 }
            return Int64(bitPattern: h)
        }
        let odd = "q\"uo\\te \u{1}é😀\n\u{2028}"
        let actions: [Action] = [
            .toggle(section: "s0"), .expand(section: odd), .setTitle(section: "s", title: odd), .setTitle(section: "", title: ""),
            .moveSection(section: "m", to: 0), .moveSection(section: "m", to: -3), .moveSection(section: "m", to: Int.min),
            .revert(rev: Int.max), .focus(section: "f", item: 10), .expandAll, .setMode(.multi),
            .setItems(section: "s", items: []), .addSection(SectionDraft(id: "n", title: odd), at: 1),
        ]
        for action in actions {
            var o: JSONObject = ["type": .string(action.name)]
            action.encodeFields(into: &o)
            #expect(ActionKey.fingerprint(action) == fnv(JSON.object(o).encoded()), "\(action)")
        }
        #expect(ActionKey.fingerprint(.toggle(section: "s0")) == -2_583_129_558_459_298_437)
        #expect(ActionKey.fingerprint(.setTitle(section: "s", title: "q\"uo\\te é")) == 1_380_404_763_184_850_047)
        #expect(ActionKey.fingerprint(.moveSection(section: "m", to: -3)) == -2_829_875_307_653_821_948)
        #expect(ActionKey.fingerprint(.expandAll) == 8_297_754_127_153_003_960)
    }

    @Test func aRepeatsAckSaysSo() {
        #expect(String(decoding: ServerMessage.ack(id: "9", board: "b", rev: 3, duplicate: true), as: UTF8.self)
            == #"{"type":"ack","id":"9","board":"b","rev":3,"duplicate":true}"#)
        #expect(String(decoding: HTTPBody.rev(4, duplicate: true), as: UTF8.self) == #"{"rev":4,"duplicate":true}"#)
    }
}

/// The canonical JSON `ActionKey.writeFlat` hashes, as bytes; false
/// (nothing written) for an action that is not flat.
private func flatBytes(_ action: Action, to out: inout [UInt8]) -> Bool {
    var bytes = ByteSink(out: out)
    out = []
    defer { out = bytes.out }
    return ActionKey.writeFlat(action, to: &bytes)
}

/// The JSON text itself.
private struct ByteSink: FlatJSONSink {
    var out: [UInt8]
    mutating func raw(_ text: StaticString) { JSONWriter.appendRaw(text, to: &out) }
    mutating func string(_ s: String) { JSONWriter.appendString(s, to: &out) }
    mutating func int(_ n: Int) { JSONWriter.appendInt(n, to: &out) }
}
