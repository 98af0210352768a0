import CLibWebSockets
import Glibc
import Synchronization

/// Where lws' own log lines go. They pass through to stderr as lws would
/// write them, except the one a connection storm repeats: past its
/// descriptor table lws closes each new socket unanswered and logs "Socket fd
/// N is too high" for every one. Those are counted here instead, and the
/// server reports them as one line per interval (`WebServer.reportRefusals`).
/// The words matched are in the same format strings at lws 4.1.6 and 4.3.5
/// (`pollfd.c`: "Socket fd %d is too high (%d) offset %d", "fd %d too high
/// (%d)", "Too many fds (%d vs %d)"); 4.3.5 puts the context's or the
/// connection's name and the function's in front, which a substring match
/// does not mind.
///
/// Global because lws has one log sink per process and calls it without a
/// context; any thread may log, so the count is atomic.
enum LWSLog {
    static let pastTable = Atomic<Int>(0)

    /// Installs the sink with `level` (an `LLL_*` mask).
    static func install(level: Int32) {
        lws_set_log_level(level, lwsLogLine)
    }

    /// The sink, for a context's own log context (`LWSContext.create`).
    static let sink: @convention(c) (Int32, UnsafePointer<CChar>?) -> Void = lwsLogLine
}

private func lwsLogLine(_ level: Int32, _ line: UnsafePointer<CChar>?) {
    guard let line else { return }
    if strstr(line, "too high (") != nil || strstr(line, "Too many fds") != nil {
        LWSLog.pastTable.add(1, ordering: .relaxed)
        return
    }
    lwsl_emit_stderr(level, line)
}
