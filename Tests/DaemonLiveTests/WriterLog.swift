import FoldTestSupport
import Foundation

/// One write a load test's writer thread made, as the writer saw it.
struct WriteOutcome: Sendable {
    var writer: Int
    var id: String
    /// Monotonic seconds (`monotonicSeconds()`): the request was sent, then answered or failed.
    var sent: Double
    var ended: Double
    /// The HTTP status, or nil when no whole answer came (refused, reset, cut
    /// short: the `error`).
    var status: Int?
    var rev: Int?
    var error: String?

    var acked: Bool { status == 200 && rev != nil }
    /// Under way at `t`: sent before it, not yet answered.
    func inFlight(at t: Double) -> Bool { sent < t && ended > t }
}

/// Every outcome of every writer of one test, so none is swallowed: the test
/// asserts on all of them once the writers have stopped.
final class WriterLog: @unchecked Sendable {
    private let lock = NSLock()
    private var outcomes: [WriteOutcome] = []

    /// Sends one HTTP write with `send` and records what came of it.
    func write(writer: Int, id: String, _ send: () throws -> HTTPReply) {
        let sent = monotonicSeconds()
        var o = WriteOutcome(writer: writer, id: id, sent: sent, ended: sent)
        do {
            let r = try send()
            o.status = r.status
            if r.status == 200 { o.rev = (try? r.json())?.rev }
            if r.status != 200 { o.error = r.text }
            if r.status == 200 && o.rev == nil {
                // Headers, then the connection ended mid-body (a node killed while
                // answering): no answer at all, not a wrong one.
                o.status = nil
                o.error = "an answer cut short: \(r.text)"
            }
        } catch {
            o.error = "\(error)"
        }
        o.ended = monotonicSeconds()
        lock.withLock { outcomes.append(o) }
    }

    var all: [WriteOutcome] { lock.withLock { outcomes } }
    func count(_ predicate: (WriteOutcome) -> Bool) -> Int { lock.withLock { outcomes.filter(predicate).count } }
}

/// CLOCK_MONOTONIC in seconds: one clock for every thread of a test.
func monotonicSeconds() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }
