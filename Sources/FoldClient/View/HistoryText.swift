import FoldCore

/// `foldsync history`: one line per change,
/// `rev 42  10:04:12  alice  toggle s1 → expanded 'Today'` (times in UTC;
/// the date comes first for a change from another day than `today`).
public enum HistoryText {
    /// `forward`: read with `--since` (what is left is newer, not older).
    public static func render(_ body: JSON, todayMs: Int, forward: Bool = false) -> String {
        var out = ""
        for e in body["entries"]?.arrayValue ?? [] {
            out += line(e, todayMs: todayMs) + "\n"
        }
        let entries = body["entries"]?.arrayValue ?? []
        if body["more"]?.boolValue == true, let first = entries.first?["rev"]?.intValue, let last = entries.last?["rev"]?.intValue {
            out += forward ? "(newer changes: --since \(last))\n" : "(older changes: --before \(first))\n"
        }
        return out
    }

    public static func line(_ e: JSON, todayMs: Int) -> String {
        let rev = e["rev"]?.intValue ?? 0
        guard let at = e["at"]?.intValue, let actor = e["actor"]?.stringValue else {
            return "rev \(rev)  (kept from before history: no record)"
        }
        let day = at / 86_400_000
        let when = (day == todayMs / 86_400_000 ? "" : date(day) + " ") + time(at)
        // Summaries quote titles and labels: anyone's text, cleaned as `show` cleans it.
        return "rev \(rev)  \(when)  \(Printable.clean(actor))  \(Printable.clean(e["summary"]?.stringValue ?? ""))"
    }

    static func time(_ ms: Int) -> String {
        let s = (ms / 1000) % 86_400
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(two(s / 3600)):\(two(s / 60 % 60)):\(two(s % 60))"
    }

    /// Days since 1970-01-01 as YYYY-MM-DD (the proleptic Gregorian calendar).
    static func date(_ days: Int) -> String {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        let y = yoe + era * 400 + (m <= 2 ? 1 : 0)
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(y)-\(two(m))-\(two(d))"
    }

    /// The API path of `foldsync history`.
    public static func path(board: String, since: Int?, before: Int?, limit: Int?) -> String {
        var q: [String] = []
        if let since { q.append("since=\(since)") }
        if let before { q.append("before=\(before)") }
        if let limit { q.append("limit=\(limit)") }
        return "/api/boards/\(board)/history" + (q.isEmpty ? "" : "?" + q.joined(separator: "&"))
    }
}
