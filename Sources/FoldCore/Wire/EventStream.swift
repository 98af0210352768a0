/// Server-Sent Events (WHATWG `text/event-stream`) for the board stream,
/// `GET /api/boards/NAME/events`: each WebSocket message a stream carries
/// (snapshot, patch, presence, deleted) becomes `event: TYPE`, `id:
/// EPOCH:REV` and its JSON as one `data:` line (the encoder escapes every
/// newline, so one line always holds it). Framed once per message and
/// shared by every stream, like the WebSocket frame it wraps.
public enum EventStream {
    /// The message types a stream carries; anything else (acks, errors,
    /// authentication) belongs to a WebSocket conversation.
    public static let types: Set<String> = ["snapshot", "patch", "presence", "deleted"]

    /// A comment line: keeps proxies and the peer's idle timers from closing a quiet stream.
    public static let heartbeat: [UInt8] = Array(": heartbeat\n\n".utf8)

    /// The event for `frame`, a daemon message; `position` is the id for
    /// messages that carry none (presence, deleted: the board's position).
    /// Nil for a message type a stream does not carry.
    public static func event(_ frame: [UInt8], position fallback: Position?) -> [UInt8]? {
        guard let type = messageType(frame), types.contains(type) else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(frame.count + type.utf8.count + 48)
        out += Array("event: ".utf8) + Array(type.utf8) + [0x0A]
        if let p = position(in: frame) ?? fallback {
            out += Array("id: \(p.epoch):\(p.rev)\n".utf8)
        }
        out += Array("data: ".utf8)
        out += frame
        out += [0x0A, 0x0A]
        return out
    }

    /// `{"type":"X",…` → X: every daemon message starts so.
    static func messageType(_ frame: [UInt8]) -> String? {
        let prefix = Array("{\"type\":\"".utf8)
        guard frame.count > prefix.count, Array(frame[0..<prefix.count]) == prefix else { return nil }
        guard let close = frame[prefix.count...].firstIndex(of: UInt8(ascii: "\"")) else { return nil }
        return String(decoding: frame[prefix.count..<close], as: UTF8.self)
    }

    /// The `"epoch":"…","rev":N` a snapshot or patch carries after its
    /// board name (which cannot hold a quote), looked for near the start only.
    static func position(in frame: [UInt8]) -> Position? {
        let head = frame.prefix(256)
        let key = Array("\"epoch\":\"".utf8)
        guard let at = find(key, in: head) else { return nil }
        let from = at + key.count
        guard let end = head[from...].firstIndex(of: UInt8(ascii: "\"")) else { return nil }
        let epoch = String(decoding: head[from..<end], as: UTF8.self)
        let revKey = Array(",\"rev\":".utf8)
        guard end + 1 + revKey.count <= head.endIndex, Array(head[(end + 1)..<(end + 1 + revKey.count)]) == revKey else { return nil }
        var rev = 0, i = end + 1 + revKey.count, digits = 0
        while i < head.endIndex, head[i] >= 0x30, head[i] <= 0x39, digits < 18 {
            rev = rev * 10 + Int(head[i] - 0x30)
            i += 1
            digits += 1
        }
        return digits > 0 ? Position(epoch: epoch, rev: rev) : nil
    }

    /// `EPOCH:REV`, as `Last-Event-ID` or `?since=` gives it back.
    public static func parsePosition(_ text: String) -> Position? {
        guard let colon = text.lastIndex(of: ":") else { return nil }
        let epoch = String(text[..<colon])
        guard !epoch.isEmpty, epoch.utf8.count <= 64, epoch.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7f && $0 != UInt8(ascii: ":") }),
              let rev = Int(text[text.index(after: colon)...]), rev >= 0 else { return nil }
        return Position(epoch: epoch, rev: rev)
    }

    private static func find(_ needle: [UInt8], in hay: ArraySlice<UInt8>) -> Int? {
        guard hay.count >= needle.count else { return nil }
        var i = hay.startIndex
        while i + needle.count <= hay.endIndex {
            if hay[i] == needle[0], Array(hay[i..<(i + needle.count)]) == needle { return i }
            i += 1
        }
        return nil
    }
}
