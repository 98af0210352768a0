import FoldCore
@testable import FoldDaemon
import FoldTestSupport
import Foundation
import PostgresTestSupport
import Testing

/// `viewers` counts the subscribers of every node on one database; a node
/// killed with -9 drops out of the count once its heartbeat rows expire,
/// one stopped cleanly at once.
@Suite struct ClusterPresenceTests {
    /// Reads presence messages until one says `viewers`; the seconds it took.
    func waitForViewers(_ n: Int, on s: TestSocket, timeout: Double) throws -> Double {
        let start = Date()
        var last: Int?
        while Date().timeIntervalSince(start) < timeout {
            guard let text = try s.recvText(timeout: max(0.01, timeout - Date().timeIntervalSince(start))) else { break }
            let m = try JSONParser.parse(text, maxDepth: 64)
            guard m.type == "presence" else { continue }
            last = m["viewers"]?.intValue
            if last == n { return Date().timeIntervalSince(start) }
        }
        throw HarnessError("viewers never reached \(n) within \(timeout) s (last seen \(last.map(String.init) ?? "none"))")
    }

    @Test func viewersAreCountedOnEveryNodeAndADeadNodeDropsOut() throws {
        let uri = try PostgresServer.shared().createDatabase()
        let nodes = try (0..<3).map { _ in try DaemonProcess(["--store", uri]) }
        defer { nodes.forEach { $0.shutdown() } }
        let a = try nodes[0].connect()
        try a.subscribe()
        let doomed = try (0..<2).map { _ in try nodes[1].connect() }
        for s in doomed { try s.subscribe() }
        let c = try nodes[2].connect()
        try c.subscribe()
        // Every node counts all four subscribers.
        _ = try waitForViewers(4, on: a, timeout: 10)
        _ = try waitForViewers(4, on: c, timeout: 10)
        #expect(try PostgresServer.shared().psql(uri, "SELECT sum(viewers) FROM foldsync_presence WHERE board = 'default'") == "4")

        // A crash: no goodbye. Its rows were renewed at most one heartbeat
        // before the kill and last `ttl` seconds: the others count its viewers
        // until they expire (nothing else removes them), and not once they have
        // (plus a heartbeat for the others to read it, and a second of slack).
        let ttl = Double(Follower.ttlSeconds), beat = Follower.beatSeconds
        nodes[1].kill9()
        let dropped = try waitForViewers(2, on: a, timeout: 60)
        #expect(dropped >= ttl - beat - 0.5, "the dead node's viewers went after \(dropped) s, before its rows could expire")
        #expect(dropped <= ttl + beat + 1, "the dead node's viewers were still counted \(dropped) s after the kill (rows last \(ttl) s)")
        _ = try waitForViewers(2, on: c, timeout: 5)

        // A clean stop removes its rows at once: gone well before they could have expired.
        #expect(nodes[2].stop() == 0)
        let left = try waitForViewers(1, on: a, timeout: 60)
        #expect(left < ttl - beat, "a stopped node's viewers went after \(left) s, as if left to expire")
        print("presence: a node killed with -9 dropped out after \(String(format: "%.1f", dropped)) s, a stopped one after \(String(format: "%.1f", left)) s")
    }
}
