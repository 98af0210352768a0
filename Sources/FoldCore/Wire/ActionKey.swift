/// The key a client gives an action so that it is applied at most once: a
/// repeat of an accepted key gets the first answer again, never a second
/// change. 1–64 bytes of printable ASCII (space to `~`), unique per board
/// for the client that chose it (the libraries use a random client id and a counter).
public enum ActionKey {
    public static let maxBytes = 64

    /// Why `key` is not a valid key; nil when it is.
    public static func problem(_ key: String) -> String? {
        let bytes = key.utf8
        if bytes.isEmpty { return "must not be empty" }
        if bytes.count > maxBytes { return "is \(bytes.count) bytes long; at most \(maxBytes) are allowed" }
        if !bytes.allSatisfy({ $0 >= 0x20 && $0 <= 0x7E }) { return "must be printable ASCII, without control characters" }
        return nil
    }

    /// What a key is remembered with, to tell a repeat from another action
    /// under the same key: FNV-1a (64 bits) of the action's canonical JSON
    /// (its type and fields; not `id`, `ifRev` or the key).
    public static func fingerprint(_ action: Action) -> Int64 {
        var o: JSONObject = ["type": .string(action.name)]
        action.encodeFields(into: &o)
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in JSON.object(o).encoded() {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return Int64(bitPattern: hash)
    }
}
