import FoldCore
import FoldTestSupport
import Foundation
import PostgresTestSupport
import Testing

/// Three nodes writing one board take turns: a node whose batch another
/// node's commit made stale goes next, instead of the node that had just won
/// winning again while the others caught up and retried.
@Suite struct ClusterFairnessTests {
    /// One writer per node keeps 8 `setTitle`s in flight on its own section
    /// of a shared board. Each node counts, for every request it commits, the
    /// batches holding it that the store refused first because another node
    /// had moved the board (`foldsync_request_refusals`). A node that gets
    /// its turn after a refusal commits on its first retry, so no request
    /// sees more than a few refusals (without the kept row lock, a node loses
    /// batch after batch while another wins: 6-10% of requests are refused
    /// more than 4 times). The count is the daemon's own, so a writer thread
    /// of this test that the machine runs late (its node then has nothing
    /// waiting and rightly loses no turn) does not change it, as it would
    /// the order of acks.
    @Test func threeNodesOnOneBoardTakeTurns() throws {
        let uri = try PostgresServer.shared().createDatabase()
        let nodes = try (0..<3).map { _ in try DaemonProcess(["--store", uri, "--max-actions-per-second", "100000", "--action-burst", "100000"]) }
        defer { nodes.forEach { $0.shutdown() } }
        // Every node holds the board before the writers start (a GET reads it from the store).
        for n in nodes { #expect(try n.http("GET", "/api/boards/default").status == 200) }
        let perWriter = 400, window = 8
        let acked = PthreadLocked([Int]())
        let writers = NodeClients(ports: nodes.map(\.port)) { k, s in
            var sent = 0, answered = 0
            func next() throws {
                try s.send(Wire.action(.setTitle, id: "n\(k)-\(sent)", #""section":"s\#(k)","title":"n\#(k)-\#(sent)""#))
                sent += 1
            }
            while sent < window { try next() }
            while answered < perWriter {
                let m = try s.recvJSON(timeout: 30)
                guard m.type == "ack" || m.type == "error" else { continue }
                answered += 1
                guard m.type == "ack", let rev = m.rev else { throw HarnessError("node \(k): \(m)") }
                acked.withLock { $0.append(rev) }
                if sent < perWriter { try next() }
            }
        }
        #expect(eventually(timeout: 120) { writers.finished })
        #expect(writers.failures.isEmpty, "\(writers.failures)")
        let revs = acked.withLock { $0 }
        #expect(revs.count == 3 * perWriter && Set(revs).count == revs.count, "two acks share a rev, or some are missing")
        var committed = 0, refused = 0
        for (k, n) in nodes.enumerated() {
            let m = try n.http("GET", "/metrics").text
            let count = Int(metric("foldsync_request_refusals_count", in: m) ?? -1)
            let withinFour = Int(metric(#"foldsync_request_refusals_bucket{le="4"}"#, in: m) ?? -1)
            committed += count
            refused += Int(metric("foldsync_request_refusals_sum", in: m) ?? 0)
            #expect(withinFour == count, "node \(k): \(count - withinFour) of its \(count) requests were refused more than 4 times before their turn")
        }
        #expect(committed == 3 * perWriter, "every request committed is counted once")
        // The premise: the nodes did contend for the board.
        #expect(refused > 0, "no batch was ever refused: the nodes never contended")
    }
}
