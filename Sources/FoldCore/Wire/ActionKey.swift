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
    /// (its type and fields; not `id`, `ifRev` or the key).
    public static func fingerprint(_ action: Action) -> Int64 {
        var out: [UInt8] = []
        return fingerprint(action, scratch: &out)
    }

    /// The same, encoding into `scratch` (emptied first; its storage kept
    /// for the next call, so a keyed action costs no allocation here).
    public static func fingerprint(_ action: Action, scratch out: inout [UInt8]) -> Int64 {
        out.removeAll(keepingCapacity: true)
        out.reserveCapacity(128)
        if !appendFlat(action, to: &out) {
            var o: JSONObject = ["type": .string(action.name)]
            action.encodeFields(into: &o)
            JSON.object(o).encode(into: &out)
        }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in out {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return Int64(bitPattern: hash)
    }

    /// The canonical JSON of an action whose fields are strings and numbers
    /// (every one a client folds with), written straight out: the bytes
    /// `encodeFields` gives, in its order, without building the object on
    /// every keyed action. False (nothing written) for the others.
    static func appendFlat(_ action: Action, to out: inout [UInt8]) -> Bool {
        func start() {
            JSONWriter.appendRaw("{\"type\":", to: &out)
            JSONWriter.appendString(action.name, to: &out)
        }
        func string(_ name: StaticString, _ value: String) {
            out.append(UInt8(ascii: ","))
            JSONWriter.appendRaw(name, to: &out)
            JSONWriter.appendString(value, to: &out)
        }
        func int(_ name: StaticString, _ value: Int) {
            out.append(UInt8(ascii: ","))
            JSONWriter.appendRaw(name, to: &out)
            out.append(contentsOf: String(value).utf8)
        }
        switch action {
        case .toggle(let s), .expand(let s), .collapse(let s), .removeSection(let s):
            start(); string("\"section\":", s)
        case .expandAll, .collapseAll, .clearFocus:
            start()
        case .setMode(let mode):
            start(); string("\"mode\":", mode.rawValue)
        case .moveSection(let s, let to):
            start(); string("\"section\":", s); int("\"to\":", to)
        case .setTitle(let s, let title):
            start(); string("\"section\":", s); string("\"title\":", title)
        case .revert(let rev):
            start(); int("\"rev\":", rev)
        case .focus(let s, let item):
            start(); string("\"section\":", s); int("\"item\":", item)
        case .addSection, .setItems, .replace:
            return false
        }
        out.append(UInt8(ascii: "}"))
        return true
    }
}
