import FoldCore
import FoldTestSupport
import Foundation
import PostgresTestSupport
import Testing

/// Three nodes writing one board take turns: a node whose batch another
/// node's commit made stale goes next, instead of the node that had just won
/// winning again while the others caught up and retried.
@Suite struct ClusterFairnessTests {
    /// One writer per node keeps 8 `setTitle`s in flight on its own section of
    /// a shared board. Sorted by rev, the acks fall in runs, each from one
    /// node; while all three have writes waiting, a run longer than a few
    /// windows means one node won batch after batch while the others waited
    /// (before the fix: runs of hundreds of revs, a node winning 20 batches
    /// in a row).
    @Test func threeNodesOnOneBoardTakeTurns() throws {
        let uri = try PostgresServer.shared().createDatabase()
        let nodes = try (0..<3).map { _ in try DaemonProcess(["--store", uri, "--max-actions-per-second", "100000", "--action-burst", "100000"]) }
        defer { nodes.forEach { $0.shutdown() } }
        // Every node holds the board before the writers start (a GET reads it
        // from the store): a node still reading it is not yet writing, and
        // the others' acks meanwhile are not a node winning over waiting writers.
        for n in nodes { #expect(try n.http("GET", "/api/boards/default").status == 200) }
        let perWriter = 400, window = 8
        let acked = PthreadLocked([(rev: Int, node: Int)]())
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
                acked.withLock { $0.append((rev, k)) }
                if sent < perWriter { try next() }
            }
        }
        #expect(eventually(timeout: 120) { writers.finished })
        #expect(writers.failures.isEmpty, "\(writers.failures)")
        let acks = acked.withLock { $0 }.sorted { $0.rev < $1.rev }
        #expect(acks.count == 3 * perWriter)
        #expect(Set(acks.map(\.rev)).count == acks.count, "two acks share a rev")
        // Only while every node still writes: the last writer left alone wins every batch, rightly.
        let lastStart = (0..<3).map { k in acks.last { $0.node == k }?.rev ?? 0 }.min() ?? 0
        var longest = 0, run = 0, previous = -1
        for a in acks where a.rev <= lastStart {
            run = a.node == previous ? run + 1 : 1
            previous = a.node
            longest = max(longest, run)
        }
        #expect(longest <= 4 * window, "one node's acks ran \(longest) revs in a row while the others waited")
    }
}
