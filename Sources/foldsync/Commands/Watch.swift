import FoldClient
import FoldSession
import FoldTransport
import Glibc

/// `foldsync watch`: one JSON line per message received for the board,
/// exactly as the daemon sent it (the daemon never puts a raw newline in a
/// message). The `hello` is not printed; everything addressed to the board
/// is (snapshot, patch, presence, deleted, ack/error). Ends with 0 on
/// SIGTERM, SIGINT or a closed stdout (EPIPE: lws ignores SIGPIPE); with 1
/// when the connection fails or is lost and no other URL answers (with
/// several, the next one resumes the stream where it stopped).
final class Watch: SessionHandler {
    let session: Session
    let options: ClientOptions
    private(set) var exitCode: Int32?
    /// How the last connection ended, until the next one opens.
    private var lastFailure: String?

    init(session: Session, options: ClientOptions) {
        self.session = session
        self.options = options
    }

    func start() {
        session.handler = self
        session.subscribe(options.board)
        session.start()
    }

    func finish(_ code: Int32, _ message: String? = nil) {
        guard exitCode == nil else { return }
        if let message { Output.fail(message) }
        exitCode = code
        session.closeAndStop()
    }

    func sessionReceived(_ event: ServerEvent, raw: [UInt8]) {
        guard exitCode == nil else { return }
        if case .hello = event { return }
        if let board = event.board, board != options.board { return }
        if !Output.write(1, raw + [0x0A]) {
            finish(0)
            return
        }
        if case .error(let code, let message, nil, _) = event, code == "not_found" {
            finish(1, "\(code): \(message)")
        }
    }

    func sessionClosed(_ reason: ClientCloseReason, url: String) {
        if exitCode == nil { lastFailure = "\(url): \(reason)" }
    }

    /// The machine moved on to the next URL at once: the stream resumes there with no gap.
    func sessionConnecting(to url: String) {
        guard exitCode == nil, let failed = lastFailure else { return }
        Output.fail("\(failed); trying \(url)")
        lastFailure = nil
    }

    /// A wait before the next connection: every URL failed in a row, and
    /// the watch ends with 1 (a script sees the failure, not a stall).
    func sessionOutput(_ output: SessionMachine.Output) {
        if case .retry = output { finish(1, lastFailure ?? "\(session.url): connection lost") }
    }

    func sessionInbox(_ event: AppEvent) {
        if case .signal = event { finish(0) }
    }
}
