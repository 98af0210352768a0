/// Board-name globs: `*` matches any run of characters, `?` one character,
/// everything else itself. Board names are ASCII, so bytes are enough.
public enum Glob {
    /// A board glob holds name characters, `*` and `?` only (tokens' and JWTs' alike).
    public static func isValidPattern(_ pattern: String) -> Bool {
        pattern.utf8.allSatisfy { Names.isValid(String(UnicodeScalar($0))) || $0 == UInt8(ascii: "*") || $0 == UInt8(ascii: "?") }
    }

    public static func matches(_ pattern: String, _ name: String) -> Bool {
        let p = Array(pattern.utf8), s = Array(name.utf8)
        var pi = 0, si = 0
        var star = -1, mark = 0
        while si < s.count {
            if pi < p.count && (p[pi] == UInt8(ascii: "?") || p[pi] == s[si]) {
                pi += 1; si += 1
            } else if pi < p.count && p[pi] == UInt8(ascii: "*") {
                star = pi; mark = si; pi += 1
            } else if star >= 0 {
                pi = star + 1; mark += 1; si = mark
            } else {
                return false
            }
        }
        while pi < p.count && p[pi] == UInt8(ascii: "*") { pi += 1 }
        return pi == p.count
    }
}
