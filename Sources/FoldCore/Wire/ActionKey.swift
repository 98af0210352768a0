/// The key a client gives an action so that it is applied at most once: a
/// repeat of an accepted key gets the first answer again, never a second
/// change. 1–64 bytes of printable ASCII (space to `~`), unique per board
/// for the client that chose it (the libraries use a random client id and a counter).
public enum ActionKey {
    public static let maxBytes = 64

    /// Why `key` is not a valid key; nil when it is.
    public static func problem(_ key: String) -> String? {
        var text = key
        return text.withUTF8 { bytes in
            if bytes.isEmpty { return "must not be empty" }
            if bytes.count > maxBytes { return "is \(bytes.count) bytes long; at most \(maxBytes) are allowed" }
            for byte in bytes where byte < 0x20 || byte > 0x7E { return "must be printable ASCII, without control characters" }
            return nil
        }
    }

    /// What a key is remembered with, to tell a repeat from another action
    /// under the same key: FNV-1a (64 bits) of the action's canonical JSON
    /// (its type and fields; not `id`, `ifRev` or the key). Stored with the
    /// key, so these bytes and this hash never change.
    public static func fingerprint(_ action: Action) -> Int64 {
        var out: [UInt8] = []
        return fingerprint(action, scratch: &out)
    }

    /// The same; an action of strings and numbers is hashed as its JSON is
    /// written, without the bytes (`writeFlat`), the others encoded into
    /// `scratch` (emptied first; its storage kept for the next call).
    public static func fingerprint(_ action: Action, scratch out: inout [UInt8]) -> Int64 {
        var hash = FNV1a()
        if writeFlat(action, to: &hash) { return Int64(bitPattern: hash.value) }
        out.removeAll(keepingCapacity: true)
        var o: JSONObject = ["type": .string(action.name)]
        action.encodeFields(into: &o)
        JSON.object(o).encode(into: &out)
        out.withUnsafeBytes { hash.add($0) }
        return Int64(bitPattern: hash.value)
    }

    /// The canonical JSON of a flat action into `sink`, written straight
    /// out without building the object; false (nothing written) for the
    /// others. Each kind's text up to its first value is one literal (an
    /// action's name needs no escaping), so the hash takes it in one run.
    static func writeFlat<Sink: FlatJSONSink>(_ action: Action, to out: inout Sink) -> Bool {
        switch action {
        case .toggle(let s): out.raw(#"{"type":"toggle","section":"#); out.string(s)
        case .expand(let s): out.raw(#"{"type":"expand","section":"#); out.string(s)
        case .collapse(let s): out.raw(#"{"type":"collapse","section":"#); out.string(s)
        case .removeSection(let s): out.raw(#"{"type":"removeSection","section":"#); out.string(s)
        case .expandAll: out.raw(#"{"type":"expandAll""#)
        case .collapseAll: out.raw(#"{"type":"collapseAll""#)
        case .clearFocus: out.raw(#"{"type":"clearFocus""#)
        case .setMode(let mode): out.raw(#"{"type":"setMode","mode":"#); out.string(mode.rawValue)
        case .moveSection(let s, let to):
            out.raw(#"{"type":"moveSection","section":"#); out.string(s)
            out.raw(#","to":"#); out.int(to)
        case .setTitle(let s, let title):
            out.raw(#"{"type":"setTitle","section":"#); out.string(s)
            out.raw(#","title":"#); out.string(title)
        case .revert(let rev): out.raw(#"{"type":"revert","rev":"#); out.int(rev)
        case .focus(let s, let item):
            out.raw(#"{"type":"focus","section":"#); out.string(s)
            out.raw(#","item":"#); out.int(item)
        case .addSection, .setItems, .replace:
            return false
        }
        out.raw("}")
        return true
    }
}
