import FoldCore

/// The text of `foldsync show`: a header line (with the focus, when there
/// is one), then each section with `▸` (collapsed) or `▾` (expanded), its id
/// and title, and the items of expanded sections indented under it, the
/// focused one marked `→`, each with its badge, link and detail.
public enum TreeText {
    public static func render(board name: String, position: Position?, document: Board) -> String {
        var out = "board \(name)"
        if let position { out += " · rev \(position.rev)" }
        out += " · \(document.mode.rawValue)"
        if let f = document.focus { out += " · focus \(f.section) item \(f.item)" }
        out += "\n"
        for s in document.sections {
            out += "\(s.expanded ? "▾" : "▸") \(s.id)  \(Printable.clean(s.title))\n"
            if s.expanded {
                for (n, item) in s.items.enumerated() {
                    let focused = document.focus == Focus(section: s.id, item: n)
                    let lines = ItemLabel.lines(Item(item))
                    out += (focused ? "  → " : "    ") + lines[0] + "\n"
                    for detail in lines.dropFirst() { out += "      " + detail + "\n" }
                }
            }
        }
        return out
    }
}

/// What an item shows: a string as itself, an object by its `label`.
public enum ItemLabel {
    public static func text(_ item: JSON) -> String { Item(item).label }

    /// The label with its badge and link, then the detail (if any) as a
    /// second line; every piece cleaned of control characters.
    public static func lines(_ item: Item) -> [String] {
        var first = Printable.clean(item.label)
        if let badge = item.badge { first += "  [\(Printable.clean(badge))]" }
        if let href = item.href { first += "  <\(href)>" }
        guard let detail = item.detail else { return [first] }
        return [first, Printable.clean(detail)]
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
