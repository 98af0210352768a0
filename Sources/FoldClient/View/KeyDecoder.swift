/// A key, as the live view understands it.
public enum Key: Sendable, Equatable {
    case up, down, pageUp, pageDown, home, end
    case enter, space, escape, ctrlC
    case char(Character)
    /// A sequence the view does not use.
    case other
}

/// Turns the bytes a terminal sends (raw mode) into keys: ASCII, UTF-8
/// text, and the CSI / SS3 sequences of arrows, PgUp/PgDn and Home/End as
/// xterm, tmux and the Linux console send them. An incomplete sequence at
/// the end of a read is kept for the next one; a lone ESC at the end of a
/// read is the Escape key.
public struct KeyDecoder: Sendable {
    private var pending: [UInt8] = []

    public init() {}

    public mutating func decode(_ bytes: [UInt8]) -> [Key] {
        pending += bytes
        var keys: [Key] = []
        var i = 0
        let b = pending
        while i < b.count {
            let byte = b[i]
            switch byte {
            case 0x1B:
                guard i + 1 < b.count else {
                    keys.append(.escape)
                    i += 1
                    continue
                }
                guard let (key, length) = Self.escapeSequence(b, at: i) else {
                    // Incomplete: wait for the rest.
                    pending = Array(b[i...])
                    return keys
                }
                keys.append(key)
                i += length
            case 0x0D, 0x0A:
                keys.append(.enter); i += 1
            case 0x20:
                keys.append(.space); i += 1
            case 0x03:
                keys.append(.ctrlC); i += 1
            case 0x00..<0x20, 0x7F:
                keys.append(.other); i += 1
            default:
                let length = byte < 0x80 ? 1 : byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 1
                if i + length > b.count {
                    pending = Array(b[i...])
                    return keys
                }
                let text = String(decoding: b[i..<(i + length)], as: UTF8.self)
                keys.append(text.first.map(Key.char) ?? .other)
                i += length
            }
        }
        pending = []
        return keys
    }

    /// The key and length of the escape sequence at `i`, nil when incomplete.
    static func escapeSequence(_ b: [UInt8], at i: Int) -> (Key, Int)? {
        let intro = b[i + 1]
        if intro == UInt8(ascii: "O") {  // SS3: ESC O A
            guard i + 2 < b.count else { return nil }
            return (final(b[i + 2], parameter: nil), 3)
        }
        guard intro == UInt8(ascii: "[") else {
            // ESC followed by something else: Escape, then that byte on its own.
            return (.escape, 1)
        }
        var j = i + 2
        var digits = ""
        while j < b.count, (0x30...0x3F).contains(b[j]) {  // parameter bytes
            digits.append(Character(Unicode.Scalar(b[j])))
            j += 1
        }
        guard j < b.count else { return nil }
        let first = digits.split(separator: ";").first.flatMap { Int($0) }
        return (final(b[j], parameter: first), j - i + 1)
    }

    static func final(_ byte: UInt8, parameter: Int?) -> Key {
        switch byte {
        case UInt8(ascii: "A"): return .up
        case UInt8(ascii: "B"): return .down
        case UInt8(ascii: "H"): return .home
        case UInt8(ascii: "F"): return .end
        case UInt8(ascii: "~"):
            switch parameter {
            case 1, 7: return .home
            case 4, 8: return .end
            case 5: return .pageUp
            case 6: return .pageDown
            default: return .other
            }
        default: return .other
        }
    }
}
