import FoldCore
import Glibc

/// Where the daemon's log lines go: stderr, one line per event. Under
/// systemd (`$JOURNAL_STREAM` set) each line starts with its syslog priority
/// (`<3>` error ... `<7>` debug) and carries no time, since the journal
/// stamps it; otherwise lines start with a UTC timestamp.
enum LogSink {
    static func make(environment: [String: String]) -> @Sendable (LogLevel, String) -> Void {
        let journal = !(environment["JOURNAL_STREAM"] ?? "").isEmpty
        return { level, text in
            let line = journal
                ? "<\(level.syslogPriority)>\(level.name) \(text)\n"
                : "\(timestamp()) \(level.name) \(text)\n"
            StandardError.write(line)
        }
    }

    /// `2026-11-29T16:20:01.123Z`
    static func timestamp() -> String {
        var tv = timeval()
        gettimeofday(&tv, nil)
        var t = time_t(tv.tv_sec)
        var parts = tm()
        gmtime_r(&t, &parts)
        func pad(_ n: Int32, _ w: Int) -> String {
            let s = String(n)
            return String(repeating: "0", count: max(0, w - s.count)) + s
        }
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))T"
            + "\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2)).\(pad(Int32(tv.tv_usec / 1000), 3))Z"
    }
}
