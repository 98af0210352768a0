import FoldCore
import Foundation
import PostgresTestSupport
import Testing

/// Three daemons on one PostgreSQL database: every node's subscribers see
/// every change in rev order, GET agrees everywhere, and racing writers on
/// different nodes never share a rev or lose an acknowledged change.
@Suite struct ClusterTests {
    func cluster(_ n: Int = 3) throws -> (String, [DaemonProcess]) {
        let uri = try PostgresServer.shared().createDatabase()
        // One after another: the first creates `default`, the others find it.
        return (uri, try (0..<n).map { _ in try DaemonProcess(["--store", uri]) })
    }

    func head(_ d: DaemonProcess) throws -> JSON { try d.http("GET", "/api/boards/default").json() }

    /// Waits until every node's GET shows `rev`.
    func converge(_ nodes: [DaemonProcess], rev: Int) throws -> Bool {
        try eventually(timeout: 10) { try nodes.allSatisfy { try head($0).rev == rev } }
    }

    @Test func changesOnAnyNodeReachSubscribersOnEveryNodeInRevOrder() throws {
        let (_, nodes) = try cluster()
        defer { nodes.forEach { $0.shutdown() } }
        let clients = try nodes.map { try $0.connect() }
        var mirrors = try clients.map { c -> (rev: Int, state: JSON) in
            let s = try c.subscribe()
            return (try #require(s.rev), try #require(s["state"]))
        }
        let start = mirrors[0].rev
        #expect(mirrors.allSatisfy { $0.rev == start })
        for i in 0..<12 {
            let writer = nodes[i % 3]
            let r = try writer.http("POST", "/api/boards/default/actions", body: #"{"type":"toggle","section":"s\#((i * 7) % 3)"}"#)
            #expect(r.status == 200, "\(r.text)")
            #expect(try r.json().rev == start + i + 1)
            #expect(try converge(nodes, rev: start + i + 1))
        }
        for (k, c) in clients.enumerated() {
            for expected in (start + 1)...(start + 12) {
                let m = try c.recvSkippingPresence()
                try #require(m.type == "patch", "node \(k): expected patch \(expected), got \(m)")
                #expect(m.rev == expected, "node \(k)")
                mirrors[k].state = try JSONPatch.apply(try #require(m["ops"]), to: mirrors[k].state)
            }
        }
        let truth = try head(nodes[0])
        for (k, n) in nodes.enumerated() {
            #expect(try head(n) == truth, "GET on node \(k)")
            #expect(mirrors[k].state == truth["state"], "mirror on node \(k)")
        }
    }

    @Test func racingWritersOnTwoNodesNeverShareARevOrLoseAnAck() throws {
        let (uri, nodes) = try cluster(2)
        defer { nodes.forEach { $0.shutdown() } }
        let acked = PthreadLocked("")
        let threads = (0..<2).map { k in
            Thread {
                for i in 0..<15 {
                    guard let r = try? nodes[k].http("POST", "/api/boards/default/actions",
                                                     body: #"{"type":"toggle","section":"s\#(k)"}"#) else { continue }
                    // A batch built on a head the other node moved is refused (`internal`), never written over it.
                    if r.status == 200, let rev = try? r.json().rev { acked.withLock { $0 += "\(rev) " } }
                    if r.status != 200 { usleep(UInt32(20_000 + i * 1_000)) }
                }
            }
        }
        threads.forEach { $0.start() }
        #expect(eventually(timeout: 60) { threads.allSatisfy(\.isFinished) })
        let revs = acked.withLock { $0 }.split(separator: " ").compactMap { Int($0) }.sorted()
        #expect(!revs.isEmpty)
        #expect(Set(revs).count == revs.count, "no rev acknowledged twice: \(revs)")
        let logged = try PostgresServer.shared().psql(uri, "SELECT rev FROM foldsync_changes WHERE board = 'default' ORDER BY rev")
            .split(separator: "\n").compactMap { Int($0) }
        let top = try #require(logged.last)
        #expect(logged == Array(1...top), "the log is consecutive")
        #expect(Set(revs).isSubset(of: Set(logged)), "every acknowledged change is in the log")
        #expect(try converge(nodes, rev: top))
        #expect(try head(nodes[0]) == head(nodes[1]))
    }
}
