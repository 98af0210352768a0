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

    /// The canonical JSON of an action whose fields are strings and numbers
    /// (every one a client folds with), as bytes: what `encodeFields` gives,
    /// in its order. False (nothing written) for the others.
    static func appendFlat(_ action: Action, to out: inout [UInt8]) -> Bool {
        var bytes = ByteSink(out: out)
        out = []
        defer { out = bytes.out }
        return writeFlat(action, to: &bytes)
    }

    /// The canonical JSON of a flat action into `sink`, written straight
    /// out without building the object; false (nothing written) for the others.
    static func writeFlat<Sink: FlatJSONSink>(_ action: Action, to out: inout Sink) -> Bool {
        func start() {
            out.raw("{\"type\":")
            out.string(action.name)
        }
        func string(_ name: StaticString, _ value: String) {
            out.raw(name)
            out.string(value)
        }
        func int(_ name: StaticString, _ value: Int) {
            out.raw(name)
            out.int(value)
        }
        switch action {
        case .toggle(let s), .expand(let s), .collapse(let s), .removeSection(let s):
            start(); string(",\"section\":", s)
        case .expandAll, .collapseAll, .clearFocus:
            start()
        case .setMode(let mode):
            start(); string(",\"mode\":", mode.rawValue)
        case .moveSection(let s, let to):
            start(); string(",\"section\":", s); int(",\"to\":", to)
        case .setTitle(let s, let title):
            start(); string(",\"section\":", s); string(",\"title\":", title)
        case .revert(let rev):
            start(); int(",\"rev\":", rev)
        case .focus(let s, let item):
            start(); string(",\"section\":", s); int(",\"item\":", item)
        case .addSection, .setItems, .replace:
            return false
        }
        out.raw("}")
        return true
    }
}

/// Where `ActionKey.writeFlat` writes: JSON text as bytes, or its hash.
protocol FlatJSONSink {
    mutating func raw(_ text: StaticString)
    /// `s` quoted and escaped as `JSONWriter.appendString` writes it.
    mutating func string(_ s: String)
    mutating func int(_ n: Int)
}

/// The bytes themselves.
struct ByteSink: FlatJSONSink {
    var out: [UInt8]
    mutating func raw(_ text: StaticString) { JSONWriter.appendRaw(text, to: &out) }
    mutating func string(_ s: String) { JSONWriter.appendString(s, to: &out) }
    mutating func int(_ n: Int) { JSONWriter.appendInt(n, to: &out) }
}

/// FNV-1a (64 bits) of the bytes, taken as they are written.
struct FNV1a: FlatJSONSink {
    private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    @inline(__always)
    mutating func add(_ byte: UInt8) { value = (value ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }

    mutating func add(_ bytes: UnsafeRawBufferPointer) { value = Self.hash(value, bytes) }

    private static func hash(_ start: UInt64, _ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var h = start
        for b in bytes { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01b3 }
        return h
    }

    mutating func raw(_ text: StaticString) {
        add(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Text JSON writes as it is (no quote, backslash, control character or
    /// U+2028/2029's lead byte) is hashed in place; other text as escaped.
    mutating func string(_ s: String) {
        var text = s
        let quoted = (value ^ UInt64(UInt8(ascii: "\""))) &* 0x0000_0100_0000_01b3
        let plain: UInt64? = text.withUTF8 { bytes in
            var h = quoted
            for b in bytes {
                if b < 0x20 || b == 0x22 || b == 0x5C || b == 0xE2 { return nil }
                h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01b3
            }
            return h
        }
        if let plain {
            value = plain
            return add(UInt8(ascii: "\""))
        }
        var escaped: [UInt8] = []
        JSONWriter.appendString(s, to: &escaped)
        escaped.withUnsafeBytes { add($0) }
    }

    /// Decimal, as `JSONWriter.appendInt` writes it: most significant digit first.
    mutating func int(_ n: Int) {
        if n < 0 { add(UInt8(ascii: "-")) }
        var rest = n.magnitude
        var unit: UInt = 1
        while rest / unit >= 10 { unit *= 10 }
        while unit > 0 {
            add(UInt8(ascii: "0") + UInt8(rest / unit))
            rest %= unit
            unit /= 10
        }
    }
}
