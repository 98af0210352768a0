import FoldCore
import Foundation
import Glibc

/// Writer mode's readers (`--history-readers N`): N threads, each asking
/// for the latest `limit` history entries of a board `perSecond` times a
/// second over HTTP, beside the writers, so the writers' ack times show
/// what history reads cost them.
final class HistoryReaders: @unchecked Sendable {
    struct Result {
        var reads = 0
        var failures = 0
        var bytes = 0
        var p50 = 0.0, p99 = 0.0
    }

    private let lock = NSLock()
    private var running = true
    private var latencies: [Double] = []
    private var result = Result()
    private let finished = DispatchGroup()

    /// Reader k reads `boards[k % boards.count]` on `nodes[k % nodes.count]`.
    init(count: Int, limit: Int, perSecond: Double, boards: [String], nodes: [BenchConfig.Node]) {
        for k in 0..<count {
            let board = boards[k % boards.count], node = nodes[k % nodes.count]
            let request = Array("GET /api/boards/\(board)/history?limit=\(limit) HTTP/1.1\r\nHost: \(node.host):\(node.port)\r\nConnection: close\r\n\r\n".utf8)
            let every = 1 / perSecond
            // Spread over the first period, so the reads do not come in one wave.
            let first = every * Double(k) / Double(count)
            finished.enter()
            Thread.detachNewThread { [self] in
                var next = Date().addingTimeInterval(first)
                while isRunning {
                    Thread.sleep(until: next)
                    next = next.addingTimeInterval(every)
                    guard isRunning else { break }
                    let start = System.nowNs()
                    let r = BoardSetup.exchange(request, host: node.host, port: node.port, timeoutSeconds: 30)
                    let ms = Double(System.nowNs() - start) / 1e6
                    let ok = r.map { String(decoding: $0.prefix(12), as: UTF8.self) == "HTTP/1.1 200" } ?? false
                    record(ok: ok, bytes: r?.count ?? 0, ms: ms)
                }
                finished.leave()
            }
        }
    }

    private var isRunning: Bool { lock.lock(); defer { lock.unlock() }; return running }

    private func record(ok: Bool, bytes: Int, ms: Double) {
        lock.lock(); defer { lock.unlock() }
        guard running else { return }
        if ok { result.reads += 1; result.bytes += bytes; latencies.append(ms) } else { result.failures += 1 }
    }

    /// Stops them (a read in progress is not counted) and returns what they saw.
    func stop() -> Result {
        lock.lock()
        running = false
        var r = result
        let sorted = latencies.sorted()
        lock.unlock()
        _ = finished.wait(timeout: .now() + 35)
        if !sorted.isEmpty {
            r.p50 = sorted[sorted.count / 2]
            r.p99 = sorted[min(sorted.count - 1, Int(Double(sorted.count) * 0.99))]
        }
        return r
    }
}
