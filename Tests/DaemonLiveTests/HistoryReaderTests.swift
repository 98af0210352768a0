import FoldCore
import FoldTestSupport
import Foundation
import Testing

/// History reads have a thread and a store connection of their own: a slow
/// read (held back on purpose by `FOLDSYNCD_TEST_READ_DELAY_MS`) delays no
/// commit, and a read still sees every change acknowledged before it was asked.
@Suite struct HistoryReaderTests {
    @Test func aCommitIsAcknowledgedWhileAHistoryReadIsStillGoing() throws {
        // Longer than any lws timeout on an HTTP exchange: the answer still arrives.
        let d = try DaemonProcess(environment: ["FOLDSYNCD_TEST_READ_DELAY_MS": "12000"])
        defer { d.shutdown() }
        let c = try d.connect()
        _ = try c.subscribe()
        #expect(try c.answer(Wire.action(.toggle, id: "a", #""section":"s1""#), id: "a").rev == 1)
        let answered = DispatchSemaphore(value: 0)
        let status = ResultBox()
        Thread.detachNewThread {
            status.set((try? HTTPClient.request(port: d.port, method: "GET", path: "/api/boards/default/history", timeout: 30))?.status ?? -1)
            answered.signal()
        }
        // The read is asked first and held for 12 s by the reader; the commit must not queue behind it.
        Thread.sleep(forTimeInterval: 0.5)
        #expect(try c.answer(Wire.action(.toggle, id: "b", #""section":"s2""#), id: "b").rev == 2)
        #expect(answered.wait(timeout: .now()) == .timedOut, "the history read answered before the commit it should not hold up")
        #expect(answered.wait(timeout: .now() + 30) == .success, "the history read never answered")
        #expect(status.get() == 200)
    }

    @Test func aReadSeesEveryAcknowledgedChangeAndARevertEveryAcceptedOne() throws {
        let d = try DaemonProcess()
        defer { d.shutdown() }
        let c = try d.connect()
        _ = try c.subscribe()
        for i in 1...20 {
            #expect(try c.answer(Wire.action(.setTitle, id: "t\(i)", #""section":"s0","title":"v\#(i)""#), id: "t\(i)").rev == i)
            let h = try d.http("GET", "/api/boards/default/history?limit=1").json()
            #expect(h["entries"]?.arrayValue?.last?.rev == i, "the read after ack \(i) missed it")
        }
        // A revert asked right behind writes still being committed is carried over all of them.
        try c.send(Wire.action(.addSection, id: "add", #""section":{"id":"n","title":"new"},"at":0"#))
        try c.send(Wire.action(.revert, id: "undo", #""rev":20"#))
        var answers: [String: JSON] = [:]
        while answers.count < 2 {
            let m = try c.recvSkippingPresence()
            if m.type == "ack" || m.type == "error", let id = m["id"]?.stringValue { answers[id] = m }
        }
        #expect(answers["add"]?.rev == 21 && answers["undo"]?.type == "ack" && answers["undo"]?.rev == 22, "\(answers)")
        let board = try d.http("GET", "/api/boards/default").json()["state"]
        let titles = (board?["sections"]?.arrayValue ?? []).compactMap { $0["title"]?.stringValue }
        #expect(titles.prefix(2) == ["new", "v19"], "\(titles)")
    }
}

/// A value one thread sets and another reads.
final class ResultBox: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    func set(_ v: Int) { lock.lock(); value = v; lock.unlock() }
    func get() -> Int { lock.lock(); defer { lock.unlock() }; return value }
}
