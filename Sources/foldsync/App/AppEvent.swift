import FoldMailbox

/// Something another thread hands to the service thread.
enum AppEvent: Sendable {
    /// A signal arrived (SIGTERM, SIGINT, SIGHUP, SIGWINCH).
    case signal(Int32)
    /// Bytes read from the terminal.
    case input([UInt8])
    /// The terminal reader reached end of input.
    case inputClosed
}

/// The service thread's mailbox: drained in `woken()`.
typealias Inbox = Mailbox<AppEvent>
