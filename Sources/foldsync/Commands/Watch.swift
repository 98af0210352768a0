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

    init(session: Session, options: ClientOptions) {
        self.session = session
        self.options = options
    }

    func start() {
        session.handler = self
        session.connect()
    }

    func finish(_ code: Int32, _ message: String? = nil) {
        guard exitCode == nil else { return }
        if let message { Output.fail(message) }
        exitCode = code
        session.closeAndStop()
    }

    /// A resume after a failover: the stream goes on with no gap (a snapshot when the daemon cannot).
    func sessionOpened() { session.subscribe(resume: true) }

    func sessionReceived(_ event: ServerEvent, raw: [UInt8], outcome: BoardMirror.Outcome) {
        guard exitCode == nil else { return }
        if case .hello = event { return }
        if let board = event.board, board != session.board { return }
        if !Output.write(1, raw + [0x0A]) {
            finish(0)
            return
        }
        if case .error(let code, let message, nil, _) = event, code == "not_found" {
            finish(1, "\(code): \(message)")
        }
    }

    func sessionClosed(_ reason: ClientCloseReason) {
        if exitCode != nil {
            session.client.stop()
        } else {
            let failed = session.url
            guard session.failover() else { return finish(1, "\(failed): \(reason)") }
            Output.fail("\(failed): \(reason); trying \(session.url)")
            session.connect()
        }
    }

    func sessionFetched(_ id: UInt64, _ result: Result<HTTPReply, TransportError>) {}

    func sessionInbox(_ event: AppEvent) {
        if case .signal = event { finish(0) }
    }
}
