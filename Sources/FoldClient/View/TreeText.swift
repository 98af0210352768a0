import FoldCore

/// The text of `foldsync show`: a header line, then each section with `▸`
/// (collapsed) or `▾` (expanded), its id and title, and the items of
/// expanded sections indented under it.
public enum TreeText {
    public static func render(board name: String, position: Position?, document: Board) -> String {
        var out = "board \(name)"
        if let position { out += " · rev \(position.rev)" }
        out += " · \(document.mode.rawValue)\n"
        for s in document.sections {
            out += "\(s.expanded ? "▾" : "▸") \(s.id)  \(Printable.clean(s.title))\n"
            if s.expanded {
                for item in s.items { out += "    \(Printable.clean(ItemLabel.text(item)))\n" }
            }
        }
        return out
    }
}

/// What an item shows: a string as itself, an object by its `label`.
public enum ItemLabel {
    public static func text(_ item: JSON) -> String {
        if let s = item.stringValue { return s }
        if let label = item["label"]?.stringValue { return label }
        return String(decoding: item.encoded(), as: UTF8.self)
    }
}

/// Text from the daemon is anyone's text: control characters (escape
/// sequences, newlines, tabs) are replaced so they can neither move the
/// terminal's cursor nor break a line.
public enum Printable {
    public static func clean(_ s: String) -> String {
        guard s.unicodeScalars.contains(where: isControl) else { return s }
        var out = String.UnicodeScalarView()
        for u in s.unicodeScalars { out.append(isControl(u) ? "\u{FFFD}" : u) }
        return String(out)
    }

    static func isControl(_ u: Unicode.Scalar) -> Bool {
        u.value < 0x20 || (0x7F...0x9F).contains(u.value) || u.value == 0x2028 || u.value == 0x2029
    }
}
