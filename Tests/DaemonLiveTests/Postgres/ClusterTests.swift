import FoldCore
import FoldTestSupport
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

    /// Every write from two nodes racing on one board is acknowledged once,
    /// at its own rev: a batch built on a head the other node moved is
    /// applied again on the newer state, never written over it.
    @Test func racingWritersOnTwoNodesAreAllAppliedWithConsecutiveRevs() throws {
        let (uri, nodes) = try cluster(2)
        defer { nodes.forEach { $0.shutdown() } }
        let watchers = try nodes.map { try $0.connect() }
        var mirrors = try watchers.map { try #require(try $0.subscribe()["state"]) }
        let acked = PthreadLocked("")
        let threads = (0..<2).map { k in
            Thread {
                for _ in 0..<15 {
                    let r = try? nodes[k].http("POST", "/api/boards/default/actions", body: #"{"type":"toggle","section":"s\#(k)"}"#)
                    acked.withLock { $0 += "\(r?.status == 200 ? (try? r?.json().rev).flatMap { $0 }.map(String.init) ?? "x" : "x") " }
                }
            }
        }
        threads.forEach { $0.start() }
        #expect(eventually(timeout: 60) { threads.allSatisfy(\.isFinished) })
        let answers = acked.withLock { $0 }.split(separator: " ")
        #expect(answers.count == 30 && !answers.contains("x"), "every write acknowledged: \(answers)")
        let revs = answers.compactMap { Int($0) }.sorted()
        #expect(revs == Array(1...30))
        let logged = try PostgresServer.shared().psql(uri, "SELECT rev FROM foldsync_changes WHERE board = 'default' ORDER BY rev")
        #expect(logged.split(separator: "\n").compactMap { Int($0) } == Array(1...30))
        #expect(try converge(nodes, rev: 30))
        #expect(try head(nodes[0]) == head(nodes[1]))
        // Every subscriber, on either node, saw revs 1...30 in order, and its mirror is what GET says.
        for (k, w) in watchers.enumerated() {
            for expected in 1...30 {
                let m = try w.recvSkippingPresence()
                try #require(m.type == "patch" && m.rev == expected, "node \(k): expected patch \(expected), got \(m)")
                mirrors[k] = try JSONPatch.apply(try #require(m["ops"]), to: mirrors[k])
            }
            #expect(mirrors[k] == (try head(nodes[k])["state"]), "mirror on node \(k)")
        }
    }

    /// Two nodes open different sections at the same instant: both acked, and one section stays open.
    @Test func theAccordionHoldsWhenTwoNodesOpenSectionsAtOnce() throws {
        let (_, nodes) = try cluster(2)
        defer { nodes.forEach { $0.shutdown() } }
        for round in 0..<5 {
            let go = DispatchSemaphore(value: 0)
            let revs = PthreadLocked("")
            let threads = (0..<2).map { k in
                Thread {
                    go.wait()
                    let r = try? nodes[k].http("POST", "/api/boards/default/actions", body: #"{"type":"expand","section":"s\#(k + 1)"}"#)
                    revs.withLock { $0 += "\(r?.status ?? 0) " }
                }
            }
            threads.forEach { $0.start() }
            go.signal(); go.signal()
            #expect(eventually(timeout: 20) { threads.allSatisfy(\.isFinished) })
            #expect(revs.withLock { $0 } == "200 200 ", "round \(round)")
            // Both acks are in, so the newest rev any node shows is the cluster's head.
            let top = try nodes.map { try head($0).rev ?? -1 }.max() ?? -1
            #expect(try converge(nodes, rev: top))
            for n in nodes { #expect(try head(n)["state"]?.expandedIDs.count == 1, "round \(round)") }
        }
    }
}
