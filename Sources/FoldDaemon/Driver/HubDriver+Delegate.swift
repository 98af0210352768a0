import FoldCore
import FoldHub
import FoldTransport

/// Each transport callback is one hub input.
extension HubDriver: WebServerDelegate {
    func admit(path: String, headers: [String: String], peer: String) -> HTTPResponse? {
        hub.admit(headers: headers, peer: peer)
    }

    func opened(_ connection: Connection) {
        feed(.opened(id: connection.id, peer: connection.peer, headers: connection.upgradeHeaders, batching: connection.batching))
        // At 10,000 connections the headers would cost megabytes; the hub has read them.
        connection.forgetUpgradeHeaders()
    }

    func received(_ connection: Connection, _ message: UnsafeRawBufferPointer) {
        feed(.received(id: connection.id, message: message))
    }

    func closed(_ connection: Connection) { report(.closed(id: connection.id)) }

    func request(_ r: HTTPRequest) {
        feed(.http(HubRequest(id: r.id, method: r.method, path: r.path, query: r.query, headers: r.headers, body: r.body, peer: r.peer)))
    }

    func drained(_ connection: Connection) { report(.queueDrained(id: connection.id)) }

    func streamDrained(_ id: UInt64) { report(.queueDrained(id: id)) }

    func streamClosed(_ id: UInt64) { report(.closed(id: id)) }

    func woken() {
        for event in mailbox.drain() {
            switch event {
            case .commit(let outcome): feed(.committed(outcome))
            case .stop: feed(.stop)
            case .reload(let fresh, let jwt): reload(fresh, jwt: jwt)
            case .reloadRefused(let why): refuseReload(why)
            case .remote(let update): feed(.remote(update))
            case .history(let id, let result): feed(.historyRead(id: id, result))
            case .board(let name, let load): feed(.boardRead(board: name, load))
            }
        }
    }
}
