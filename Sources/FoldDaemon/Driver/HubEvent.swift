import FoldConfig
import FoldCore
import FoldHub
import FoldMailbox

/// Messages from other threads to the hub, drained on the service thread.
enum HubEvent: Sendable {
    case commit(CommitOutcome)
    case stop
    /// SIGHUP: a configuration that parsed and validated, with its JWT keys read.
    case reload(DaemonConfig, JWTSettings?)
    case reloadRefused(String)
    /// What other daemons committed to a shared store (the follower thread).
    case remote(RemoteUpdate)
    /// A history read the reader did for the hub.
    case history(id: UInt64, Result<HistoryAnswer, StoreError>)
    /// A board the reader read for the hub.
    case board(String, BoardLoad)
}

/// The hub's mailbox: signals, the committer and the reader post, the driver drains in `woken()`.
typealias HubMailbox = Mailbox<HubEvent>
