import FoldCore
import FoldTestSupport
import Foundation

/// Building client messages and reading daemon messages in tests.
enum Wire {
    /// A JSON string literal for `s` (quoted and escaped).
    static func q(_ s: String) -> String { String(decoding: JSON.string(s).encoded(), as: UTF8.self) }

    static func subscribe(_ board: String = "default", since: (epoch: String, rev: Int)? = nil) -> String {
        guard let since else { return #"{"type":"subscribe","board":\#(q(board))}"# }
        return #"{"type":"subscribe","board":\#(q(board)),"since":{"epoch":\#(q(since.epoch)),"rev":\#(since.rev)}}"#
    }

    /// An action on `board`: `fields` is the rest of the object's members, already JSON (`"section":"s0"`).
    static func action(_ type: ActionName, board: String = "default", id: String? = nil, _ fields: String = "") -> String {
        var out = #"{"type":\#(q(type.rawValue)),"board":\#(q(board))"#
        if let id { out += #","id":\#(q(id))"# }
        if !fields.isEmpty { out += "," + fields }
        return out + "}"
    }

    /// The default board as PROTOCOL.md describes it.
    static let defaultState: JSON = try! JSONParser.parse("""
        {"mode":"single","sections":[
          {"id":"s0","title":"0","items":["1","2"],"expanded":false},
          {"id":"s1","title":"1","items":["222","333"],"expanded":false},
          {"id":"s2","title":"2","items":["33333","44444"],"expanded":false}]}
        """)
}

extension JSON {
    var type: String? { self["type"]?.stringValue }
    var rev: Int? { self["rev"]?.intValue }
    var code: String? { self["code"]?.stringValue }

    /// `state.sections[*].expanded` as a map from id.
    var expandedIDs: [String] {
        (self["sections"]?.arrayValue ?? []).compactMap { s in
            s["expanded"]?.boolValue == true ? s["id"]?.stringValue : nil
        }
    }

    var sectionIDs: [String] { (self["sections"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue } }

    func section(_ id: String) -> JSON? {
        self["sections"]?.arrayValue?.first { $0["id"]?.stringValue == id }
    }
}

extension TestSocket {
    /// Subscribes and returns the snapshot.
    @discardableResult
    func subscribe(_ board: String = "default") throws -> JSON {
        try send(Wire.subscribe(board))
        let m = try recvSkippingPresence()
        guard m.type == "snapshot" else { throw HarnessError("expected a snapshot, got \(m)") }
        return m
    }

    /// Sends an action and returns every non-presence message up to and
    /// including its `ack` or `error` (matched by `id`).
    func perform(_ message: String, id: String) throws -> [JSON] {
        try send(message)
        var out: [JSON] = []
        let deadline = Date().addingTimeInterval(TestSocket.defaultTimeout)
        while true {
            let m = try recvSkippingPresence(timeout: max(0.01, deadline.timeIntervalSinceNow))
            out.append(m)
            if m.type == "ack" && m["id"]?.stringValue == id { return out }
            // An error answers this request when it names it, or names no request at all (unparsable).
            if m.type == "error" && (m["id"] == nil || m["id"]?.stringValue == id) { return out }
        }
    }

    /// Sends an action and returns its answer (`ack` or `error`), skipping anything else.
    func answer(_ message: String, id: String) throws -> JSON {
        try perform(message, id: id).last!
    }
}

/// The value of a metric line `name value` (no labels) in Prometheus text.
func metric(_ name: String, in text: String) -> Double? {
    for line in text.split(separator: "\n") where line.hasPrefix(name + " ") {
        return Double(line.dropFirst(name.count + 1))
    }
    return nil
}
