import FoldCore
import FoldSystem
import Foundation
import Glibc

/// Writer mode's readers (`--history-readers N`): N threads, each asking
/// for the latest `limit` history entries of a board `perSecond` times a
/// second over HTTP, beside the writers, so the writers' ack times show
/// what history reads cost them.
final class HistoryReaders: Sendable {
    struct Result {
        var reads = 0
        var failures = 0
        var bytes = 0
        var p50 = 0.0, p99 = 0.0
    }

    private struct Seen {
        var running = true
        var latencies: [Double] = []
        var result = Result()
    }
    private let seen = Locked(Seen())
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

    private var isRunning: Bool { seen.withLock { $0.running } }

    private func record(ok: Bool, bytes: Int, ms: Double) {
        seen.withLock { s in
            guard s.running else { return }
            if ok { s.result.reads += 1; s.result.bytes += bytes; s.latencies.append(ms) } else { s.result.failures += 1 }
        }
    }

    /// Stops them (a read in progress is not counted) and returns what they saw.
    func stop() -> Result {
        let (seenSoFar, sorted) = seen.withLock { s in
            s.running = false
            return (s.result, s.latencies.sorted())
        }
        var r = seenSoFar
        _ = finished.wait(timeout: .now() + 35)
        if !sorted.isEmpty {
            r.p50 = sorted[sorted.count / 2]
            r.p99 = sorted[min(sorted.count - 1, Int(Double(sorted.count) * 0.99))]
        }
        return r
    }
}
