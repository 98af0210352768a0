/// The common action message decoded straight from its bytes, without a
/// JSON tree: a flat object of known members with plain values (strings of
/// printable ASCII without escapes, integers). Anything else (another
/// message type, an action with nested members, an unknown or repeated
/// member, an escape, a value of another type, a check that fails) is nil,
/// and the caller decodes the message the general way, which also words
/// every error. So what this accepts decodes exactly as
/// `ClientMessage.decode` would decode it (`FlatActionDecoderTests` holds
/// the two side by side); it only costs less: the tree, its strings and
/// its look-ups are most of a write's decoding, and a `key` goes into its
/// `PackedKey` without a `String`.
public enum FlatActionDecoder {
    /// The members read, by their place in `Fields`.
    private enum Member {
        case type, board, id, key, ifRev, section, title, mode, to, item, rev
    }

    /// Where a member's value stands in the message: a string's bytes
    /// (without the quotes), or an integer.
    private struct Slot {
        var start = -1
        var end = 0
        var number = 0
        var isNumber = false
    }

    /// One slot per member, inline (no allocation per message).
    private struct Fields {
        var type = Slot(), board = Slot(), id = Slot(), key = Slot(), ifRev = Slot(), section = Slot()
        var title = Slot(), mode = Slot(), to = Slot(), item = Slot(), rev = Slot()

        subscript(m: Member) -> Slot {
            get {
                switch m {
                case .type: type
                case .board: board
                case .id: id
                case .key: key
                case .ifRev: ifRev
                case .section: section
                case .title: title
                case .mode: mode
                case .to: to
                case .item: item
                case .rev: rev
                }
            }
            set {
                switch m {
                case .type: type = newValue
                case .board: board = newValue
                case .id: id = newValue
                case .key: key = newValue
                case .ifRev: ifRev = newValue
                case .section: section = newValue
                case .title: title = newValue
                case .mode: mode = newValue
                case .to: to = newValue
                case .item: item = newValue
                case .rev: rev = newValue
                }
            }
        }

        func has(_ m: Member) -> Bool { self[m].start >= 0 }
    }

    public static func decode(_ bytes: UnsafeRawBufferPointer) -> ActionRequest? {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return nil }
        let p = UnsafeBufferPointer(start: base, count: bytes.count)
        var fields = Fields()
        guard scan(p, into: &fields) else { return nil }
        return request(p, fields)
    }

    // MARK: - The object

    private static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 }

    /// Reads `{ "name": value, ... }` with only the members this decoder knows, each once.
    private static func scan(_ p: UnsafeBufferPointer<UInt8>, into f: inout Fields) -> Bool {
        let n = p.count
        var i = 0
        while i < n, isSpace(p[i]) { i += 1 }
        guard i < n, p[i] == UInt8(ascii: "{") else { return false }
        i += 1
        while true {
            while i < n, isSpace(p[i]) { i += 1 }
            guard i < n, p[i] == UInt8(ascii: "\"") else { return false }
            guard let nameEnd = stringEnd(p, from: i + 1), let m = member(p, i + 1, nameEnd) else { return false }
            guard !f.has(m) else { return false }
            i = nameEnd + 1
            while i < n, isSpace(p[i]) { i += 1 }
            guard i < n, p[i] == UInt8(ascii: ":") else { return false }
            i += 1
            while i < n, isSpace(p[i]) { i += 1 }
            guard i < n else { return false }
            if p[i] == UInt8(ascii: "\"") {
                guard let end = stringEnd(p, from: i + 1) else { return false }
                f[m] = Slot(start: i + 1, end: end)
                i = end + 1
            } else {
                guard let (value, end) = integer(p, from: i) else { return false }
                f[m] = Slot(start: i, end: end, number: value, isNumber: true)
                i = end
            }
            while i < n, isSpace(p[i]) { i += 1 }
            guard i < n else { return false }
            if p[i] == UInt8(ascii: ",") { i += 1; continue }
            guard p[i] == UInt8(ascii: "}") else { return false }
            i += 1
            while i < n, isSpace(p[i]) { i += 1 }
            return i == n
        }
    }

    /// The closing quote of a string starting at `from`; nil at an escape,
    /// a control character or a byte outside ASCII (the general path reads those).
    private static func stringEnd(_ p: UnsafeBufferPointer<UInt8>, from: Int) -> Int? {
        var i = from
        while i < p.count {
            let b = p[i]
            if b == UInt8(ascii: "\"") { return i }
            if b < 0x20 || b >= 0x7F || b == UInt8(ascii: "\\") { return nil }
            i += 1
        }
        return nil
    }

    /// `-? (0 | [1-9][0-9]*)` of at most 18 digits, not followed by a
    /// fraction or an exponent (the general path reads those, and refuses them).
    private static func integer(_ p: UnsafeBufferPointer<UInt8>, from: Int) -> (Int, Int)? {
        var i = from
        let negative = p[i] == UInt8(ascii: "-")
        if negative { i += 1 }
        let first = i
        var value = 0
        while i < p.count, p[i] >= UInt8(ascii: "0"), p[i] <= UInt8(ascii: "9") {
            // Past 18 digits the general path reads (and refuses) it; stopping here keeps `value` from overflowing.
            guard i - first < 18 else { return nil }
            value = value * 10 + Int(p[i] - UInt8(ascii: "0"))
            i += 1
        }
        let digits = i - first
        guard digits > 0, !(digits > 1 && p[first] == UInt8(ascii: "0")) else { return nil }
        if i < p.count, p[i] == UInt8(ascii: ".") || p[i] == UInt8(ascii: "e") || p[i] == UInt8(ascii: "E") { return nil }
        return (negative ? -value : value, i)
    }

    /// The member named by bytes `from..<to`, nil for a name this decoder does not read.
    private static func member(_ p: UnsafeBufferPointer<UInt8>, _ from: Int, _ to: Int) -> Member? {
        func named(_ name: StaticString) -> Bool {
            guard name.utf8CodeUnitCount == to - from else { return false }
            for k in 0..<(to - from) where name.utf8Start[k] != p[from + k] { return false }
            return true
        }
        switch to - from {
        case 2: return named("id") ? .id : named("to") ? .to : nil
        case 3: return named("key") ? .key : named("rev") ? .rev : nil
        case 4: return named("type") ? .type : named("mode") ? .mode : named("item") ? .item : nil
        case 5: return named("board") ? .board : named("ifRev") ? .ifRev : named("title") ? .title : nil
        case 7: return named("section") ? .section : nil
        default: return nil
        }
    }

    // MARK: - The action

    private static func request(_ p: UnsafeBufferPointer<UInt8>, _ f: Fields) -> ActionRequest? {
        guard let type = text(p, f, .type), let name = ActionName(rawValue: type) else { return nil }
        guard let board = text(p, f, .board), Names.isValid(board) else { return nil }
        var id: String?
        if f.has(.id) {
            guard let s = text(p, f, .id) else { return nil }
            id = s
        }
        var ifRev: Int?
        if f.has(.ifRev) {
            guard let n = number(f, .ifRev), n >= 0 else { return nil }
            ifRev = n
        }
        var key: PackedKey?
        if f.has(.key) {
            let length = f.key.end - f.key.start
            guard !f.key.isNumber, length > 0, length <= ActionKey.maxBytes else { return nil }
            key = PackedKey(bytes: UnsafeBufferPointer(rebasing: p[f.key.start..<f.key.end]))
        }
        let action: Action
        switch name {
        case .toggle, .expand, .collapse, .removeSection:
            guard let section = text(p, f, .section) else { return nil }
            switch name {
            case .toggle: action = .toggle(section: section)
            case .expand: action = .expand(section: section)
            case .collapse: action = .collapse(section: section)
            default: action = .removeSection(section: section)
            }
        case .expandAll: action = .expandAll
        case .collapseAll: action = .collapseAll
        case .clearFocus: action = .clearFocus
        case .setMode:
            guard let mode = text(p, f, .mode).flatMap(BoardMode.init(rawValue:)) else { return nil }
            action = .setMode(mode)
        case .moveSection:
            guard let section = text(p, f, .section), let to = number(f, .to) else { return nil }
            action = .moveSection(section: section, to: to)
        case .setTitle:
            guard let section = text(p, f, .section), let title = text(p, f, .title) else { return nil }
            action = .setTitle(section: section, title: title)
        case .focus:
            guard let section = text(p, f, .section), let item = number(f, .item) else { return nil }
            action = .focus(section: section, item: item)
        case .revert:
            guard let rev = number(f, .rev) else { return nil }
            action = .revert(rev: rev)
        case .addSection, .setItems, .replace:
            return nil
        }
        return ActionRequest(id: id, board: board, ifRev: ifRev, action: action, key: key)
    }

    /// A string member's value; nil when absent or a number.
    private static func text(_ p: UnsafeBufferPointer<UInt8>, _ f: Fields, _ m: Member) -> String? {
        let slot = f[m]
        guard slot.start >= 0, !slot.isNumber else { return nil }
        return String(decoding: UnsafeBufferPointer(rebasing: p[slot.start..<slot.end]), as: UTF8.self)
    }

    /// An integer member's value; nil when absent or a string.
    private static func number(_ f: Fields, _ m: Member) -> Int? {
        let slot = f[m]
        return slot.start >= 0 && slot.isNumber ? slot.number : nil
    }
}
