import FoldClient
import FoldCore
import Testing

/// `foldsync history`'s lines, from the body the daemon answers.
@Suite struct HistoryTextTests {
    static let noon = 1_764_590_400_000  // 2025-12-01 12:00:00 UTC

    static func entry(_ fields: String) throws -> JSON {
        try JSONParser.parse(Array("{\"rev\":7,\"at\":\(noon),\(fields)}".utf8), maxDepth: 8)
    }

    @Test func oneLinePerChangeWithTheDateForAnotherDay() throws {
        let e = try Self.entry(#""actor":"alice","session":"c1","summary":"toggle s1 → expanded 'Today'""#)
        #expect(HistoryText.line(e, todayMs: Self.noon) == "rev 7  12:00:00  alice  toggle s1 → expanded 'Today'")
        #expect(HistoryText.line(e, todayMs: Self.noon + 86_400_000) == "rev 7  2025-12-01 12:00:00  alice  toggle s1 → expanded 'Today'")
    }

    /// A summary quotes titles anyone with `edit` wrote: an escape sequence
    /// in one must not reach the terminal (as `show` already ensures).
    @Test func controlCharactersFromTheBoardNeverReachTheTerminal() throws {
        let e = try Self.entry(#""actor":"a\u001b]0;x\u0007","session":"c1","summary":"title of s2 '2' → 'evil\u001b[2J\u009b31m\r'""#)
        let line = HistoryText.line(e, todayMs: Self.noon)
        #expect(!line.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }, "\(line.debugDescription)")
        #expect(line == "rev 7  12:00:00  a\u{FFFD}]0;x\u{FFFD}  title of s2 '2' → 'evil\u{FFFD}[2J\u{FFFD}31m\u{FFFD}'")
    }
}
