import FoldCore
import FoldTestSupport
import Foundation
import PostgresTestSupport
import Testing

/// Once any client holds the ack of rev R, every later answer from any node
/// is at or after R: a node whose copy of a board lags (it has not applied
/// another node's commit yet) must not answer a no-op, an `ifRev` or a
/// missing board from that copy.
@Suite struct ClusterLinearizabilityTests {
    /// `n` daemons on one fresh database; `lagMs` holds back each one's
    /// follower (the test hook), so its copy stays stale that long.
    func cluster(_ lags: [Int]) throws -> [DaemonProcess] {
        let uri = try PostgresServer.shared().createDatabase()
        return try lags.map { lag in
            try DaemonProcess(["--store", uri], environment: lag > 0 ? ["FOLDSYNCD_TEST_FOLLOWER_LAG_MS": String(lag)] : [:])
        }
    }

    /// Three nodes: a `collapseAll` acknowledged first, then one `expand`
    /// from each node at the same moment, many rounds. Every expand changes
    /// the board after the collapse: each must be acked after the collapse's
    /// rev, the three at three distinct revs, and the board then shows the
    /// section of the latest. Followers lag, so a node's stale copy still has
    /// its section open from the round before and a stale answer is a no-op.
    @Test func expandsRacingAfterAnAcknowledgedCollapseAreAllAfterIt() throws {
        let nodes = try cluster([0, 150, 150])
        defer { nodes.forEach { $0.shutdown() } }
        let rounds = 25
        let lead = try nodes[0].connect()
        let go = (0..<3).map { _ in DispatchSemaphore(value: 0) }
        let done = DispatchSemaphore(value: 0)
        let answers = PthreadLocked([[Int: JSON]](repeating: [:], count: rounds))
        let writers = NodeClients(ports: nodes.map(\.port), failed: { _ in for _ in 0..<rounds { done.signal() } }) { k, s in
            for round in 0..<rounds {
                go[k].wait()
                let id = "r\(round)n\(k)"
                try s.send(Wire.action(.expand, id: id, #""section":"s\#(k)""#))
                let m = try s.answer(to: id, timeout: 20)
                answers.withLock { $0[round][k] = m }
                done.signal()
            }
        }
        var stale = 0
        for round in 0..<rounds {
            let id = "collapse\(round)"
            try lead.send(Wire.action(.collapseAll, id: id))
            let collapsed = try lead.answer(to: id, timeout: 20)
            try #require(collapsed.type == "ack", "round \(round): \(collapsed)")
            let r = try #require(collapsed.rev)
            go.forEach { $0.signal() }
            for _ in 0..<3 { #expect(done.wait(timeout: .now() + 30) == .success) }
            try #require(writers.failures.isEmpty, "\(writers.failures)")
            let got = answers.withLock { $0[round] }
            let revs = (0..<3).compactMap { got[$0]?.rev }
            for k in 0..<3 {
                #expect(got[k]?.type == "ack", "round \(round) node \(k): \(String(describing: got[k]))")
                if let rev = got[k]?.rev, rev <= r { stale += 1 }
            }
            #expect(revs.sorted() == [r + 1, r + 2, r + 3], "round \(round): collapse at \(r), expands acked at \(revs)")
            // The latest expand's section is the open one, on every node.
            if let last = (0..<3).max(by: { (got[$0]?.rev ?? 0) < (got[$1]?.rev ?? 0) }) {
                #expect(try eventually(timeout: 10) {
                    try nodes.allSatisfy { try $0.http("GET", "/api/boards/default").json()["state"]?.expandedIDs == ["s\(last)"] }
                }, "round \(round)")
            }
        }
        #expect(stale == 0, "\(stale) expands acknowledged at or before the collapse they followed")
    }

    /// A node whose follower is held back three seconds: a no-op, an `ifRev`
    /// and an action on a board another node just created, sent to it right
    /// after another node's ack, are judged at the store's head, not its copy.
    @Test func aLaggingNodeAnswersFromTheStoresHead() throws {
        let nodes = try cluster([0, 3_000])
        defer { nodes.forEach { $0.shutdown() } }
        let a = try nodes[0].connect(), b = try nodes[1].connect()
        try a.send(Wire.action(.expand, id: "open", #""section":"s1""#))
        let opened = try #require(try a.answer(to: "open").rev)
        #expect(try eventually(timeout: 10) { try nodes[1].http("GET", "/api/boards/default").json().rev == opened })

        // A closes s1; B's copy still shows it open, so "expand s1" looks like a no-op there.
        try a.send(Wire.action(.collapse, id: "close", #""section":"s1""#))
        let closed = try #require(try a.answer(to: "close").rev)
        try b.send(Wire.action(.expand, id: "noop?", #""section":"s1""#))
        let reopened = try b.answer(to: "noop?")
        #expect(reopened.type == "ack" && (reopened.rev ?? 0) > closed, "\(reopened)")
        // GET answers from a node's copy: node 0 shows B's change once its follower has read it.
        #expect(try eventually(timeout: 10) {
            let head = try nodes[0].http("GET", "/api/boards/default").json()
            return head.rev == reopened.rev && head["state"]?.expandedIDs == ["s1"]
        }, "the acknowledged expand is on the board")

        // An ifRev at the head A just acknowledged: B must not call it a conflict.
        try a.send(Wire.action(.collapse, id: "close2", #""section":"s1""#))
        let closed2 = try #require(try a.answer(to: "close2").rev)
        try b.send(Wire.action(.toggle, id: "ifrev", #""section":"s0","ifRev":\#(closed2)"#))
        let toggled = try b.answer(to: "ifrev")
        #expect(toggled.type == "ack" && toggled.rev == closed2 + 1, "\(toggled)")
        // And a no-op that really is one, at the store's head (never below an acknowledged rev).
        try b.send(Wire.action(.expand, id: "noop", #""section":"s0""#))
        let noop = try b.answer(to: "noop")
        #expect(noop.type == "ack" && noop.rev == closed2 + 1, "\(noop)")

        // A board A created: B's copy does not have it yet.
        let put = try nodes[0].http("PUT", "/api/boards/fresh", body: #"{"mode":"multi","sections":[{"id":"x","title":"x","items":[],"expanded":false}]}"#)
        #expect(put.status == 200, "\(put.text)")
        try b.send(Wire.action(.expand, board: "fresh", id: "fresh", #""section":"x""#))
        let fresh = try b.answer(to: "fresh")
        #expect(fresh.type == "ack" && fresh.rev == 1, "\(fresh)")
    }

    /// Random actions from three nodes at once, followers lagging: taken
    /// together the acks are one history consistent with real time. Every
    /// ack's rev is at or after every rev acknowledged before its request
    /// was sent, and changes (revs that moved the board) are never shared.
    @Test func acksFromThreeNodesFormOneRealTimeHistory() throws {
        let nodes = try cluster([0, 80, 200])
        defer { nodes.forEach { $0.shutdown() } }
        let watcher = try nodes[0].connect()
        _ = try watcher.subscribe()
        struct Answer { var node: Int, sent: UInt64, acked: UInt64, rev: Int, id: String }
        let log = PthreadLocked([Answer]())
        let perNode = 40
        let writers = NodeClients(ports: nodes.map(\.port)) { k, s in
            var rng = SystemRandomNumberGenerator()
            for i in 0..<perNode {
                let id = "n\(k)a\(i)"
                let section = "s\(Int.random(in: 0..<3, using: &rng))"
                let msg: String
                switch Int.random(in: 0..<4, using: &rng) {
                case 0: msg = Wire.action(.expand, id: id, #""section":"\#(section)""#)
                case 1: msg = Wire.action(.collapse, id: id, #""section":"\#(section)""#)
                case 2: msg = Wire.action(.toggle, id: id, #""section":"\#(section)""#)
                default: msg = Wire.action(.collapseAll, id: id)
                }
                let sent = DispatchTime.now().uptimeNanoseconds
                try s.send(msg)
                let m = try s.answer(to: id, timeout: 20)
                let acked = DispatchTime.now().uptimeNanoseconds
                guard m.type == "ack", let rev = m.rev else { throw HarnessError("\(id): \(m)") }
                log.withLock { $0.append(Answer(node: k, sent: sent, acked: acked, rev: rev, id: id)) }
                usleep(UInt32.random(in: 0..<20_000, using: &rng))
            }
        }
        #expect(eventually(timeout: 120) { writers.finished })
        #expect(writers.failures.isEmpty, "\(writers.failures)")
        let answers = log.withLock { $0 }
        #expect(answers.count == 3 * perNode)
        var violations: [String] = []
        for x in answers {
            let before = answers.filter { $0.acked < x.sent }.max { $0.rev < $1.rev }
            if let before, x.rev < before.rev {
                violations.append("\(x.id) (node \(x.node)) acked at rev \(x.rev) after \(before.id) (node \(before.node)) was acked at \(before.rev)")
            }
        }
        #expect(violations.isEmpty, "\(violations.count) answers behind real time: \(violations.prefix(5))")
        // The board's changes, as one node's subscriber saw them: consecutive revs.
        let top = try #require(answers.map(\.rev).max())
        #expect(try eventually(timeout: 10) { try nodes.allSatisfy { try $0.http("GET", "/api/boards/default").json().rev == top } })
        var seen: [Int] = []
        while seen.last != top {
            let m = try watcher.recvSkippingPresence(timeout: 10)
            if m.type == "patch", let r = m.rev { seen.append(r) }
        }
        #expect(seen == Array(1...top))
    }
}

extension TestSocket {
    /// The `ack` or `error` that answers the request tagged `id`, skipping anything else.
    func answer(to id: String, timeout: Double = TestSocket.defaultTimeout) throws -> JSON {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let m = try recvJSON(timeout: max(0.01, deadline.timeIntervalSinceNow))
            if (m.type == "ack" || m.type == "error"), m["id"]?.stringValue == id { return m }
        }
    }
}
