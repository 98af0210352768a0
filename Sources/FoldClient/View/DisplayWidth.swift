import CTerminal

/// Terminal columns, measured with the C library's `wcwidth` (so the
/// program must have called `setlocale(LC_ALL, "")` in a UTF-8 locale):
/// CJK and most emoji take 2 columns, combining marks 0. Control
/// characters never reach here (`Printable.clean`) and count as 1.
public enum DisplayWidth {
    public static func of(_ u: Unicode.Scalar) -> Int {
        if u.value < 0x7F { return 1 }
        let w = Int(fs_wcwidth(u.value))
        return w < 0 ? 1 : w
    }

    /// Columns of one grapheme: its scalars' widths added, at most 2.
    public static func of(_ c: Character) -> Int {
        var total = 0
        for u in c.unicodeScalars { total += of(u) }
        return min(total, 2)
    }

    public static func of(_ s: String) -> Int {
        var total = 0
        for c in s { total += of(c) }
        return total
    }

    /// `s` cut to at most `columns` columns: when it is longer, as many whole
    /// characters as fit before a final `…`. A wide character never straddles
    /// the edge, so the result may be a column short. Never wraps.
    public static func fit(_ s: String, _ columns: Int) -> (text: String, width: Int) {
        guard columns > 0 else { return ("", 0) }
        let full = of(s)
        if full <= columns { return (s, full) }
        var out = ""
        var used = 0
        for c in s {
            let w = of(c)
            if used + w > columns - 1 { break }
            out.append(c)
            used += w
        }
        return (out + "…", used + 1)
    }
}
