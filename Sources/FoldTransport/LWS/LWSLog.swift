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
/// Global because lws has one log sink and one level per process and calls
/// the sink without a context; any thread may log, so the count is atomic.
/// Every context of the process (a server, a client beside it in one
/// process) installs through here: the level is the union of what each
/// asked, so a quiet client never silences a server's errors nor takes
/// its sink away.
enum LWSLog {
    static let pastTable = Atomic<Int>(0)
    /// The `LLL_*` mask lws has, the union of every `install`.
    static let level = Mutex<Int32>(0)

    /// Installs the sink with `level` (an `LLL_*` mask) added to the process's.
    static func install(level wanted: Int32) {
        level.withLock { current in
            current |= wanted
            lws_set_log_level(current, lwsLogLine)
        }
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
