import FoldSession
import FoldTransport

/// What a session reports to whoever drives it (a command, watch or the
/// live view). Service thread, like the session itself.
protocol SessionHandler: AnyObject {
    /// A daemon message as it came, before the machine reads it.
    func sessionReceived(_ event: ServerEvent, raw: [UInt8])
    /// A connection to `url` is opening.
    func sessionConnecting(to url: String)
    /// The connection to `url` ended, before the machine decides what follows.
    func sessionClosed(_ reason: ClientCloseReason, url: String)
    /// What the machine tells the application (and `retry`: it waits before the next connection).
    func sessionOutput(_ output: SessionMachine.Output)
    func sessionFetched(_ id: UInt64, _ result: Result<HTTPReply, TransportError>)
    func sessionInbox(_ event: AppEvent)
    /// `--token-command` failed; the connection goes on with the token it has until the daemon refuses it.
    func sessionTokenFailed(_ why: String)
}

extension SessionHandler {
    func sessionReceived(_ event: ServerEvent, raw: [UInt8]) {}
    func sessionConnecting(to url: String) {}
    func sessionClosed(_ reason: ClientCloseReason, url: String) {}
    func sessionFetched(_ id: UInt64, _ result: Result<HTTPReply, TransportError>) {}
    func sessionTokenFailed(_ why: String) { Output.fail(why) }
}
