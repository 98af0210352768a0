/// The one rule for an item's `href`: an `http`, `https` or `mailto` link,
/// with no whitespace, control or invisible formatting character anywhere
/// (browsers drop tabs and newlines inside URLs, so `java\tscript:` would
/// otherwise slip through; a C1 control reaches a terminal that prints the
/// link, a bidi override or a zero-width space disguises where it goes).
/// Every other scheme, `javascript:` and `data:` included, is refused, and
/// so is a relative reference, which a page would resolve against itself.
public enum Link {
    public static let schemes: Set<String> = ["http", "https", "mailto"]

    public static func isAllowed(_ href: String) -> Bool {
        guard !href.unicodeScalars.contains(where: isForbidden) else { return false }
        let bytes = Array(href.utf8)
        guard
              let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon > 0,
              isScheme(bytes[..<colon])
        else { return false }
        let scheme = String(decoding: bytes[..<colon], as: UTF8.self).lowercased()
        guard schemes.contains(scheme) else { return false }
        let rest = bytes[(colon + 1)...]
        if scheme == "mailto" { return !rest.isEmpty }
        // http(s): an authority, so the link cannot be a path on the page's own host.
        let slash = UInt8(ascii: "/")
        return rest.count > 2 && rest.starts(with: [slash, slash]) && rest[rest.startIndex + 2] != slash
    }

    /// ASCII controls and space, C1 controls, Unicode spaces and line breaks,
    /// and format characters (`Cf`: bidi overrides, zero-width space, BOM).
    /// The JavaScript library's `link.js` refuses the same set.
    static func isForbidden(_ u: Unicode.Scalar) -> Bool {
        u.value <= 0x20 || (0x7F...0x9F).contains(u.value) || u.properties.isWhitespace
            || u.properties.generalCategory == .format
    }

    /// RFC 3986: `ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )`.
    static func isScheme(_ s: ArraySlice<UInt8>) -> Bool {
        guard let first = s.first, isAlpha(first) else { return false }
        return s.allSatisfy { isAlpha($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
            || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".") }
    }

    static func isAlpha(_ b: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(b) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(b)
    }
}
