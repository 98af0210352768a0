import FoldTestSupport
import Foundation

/// One client thread per node of a cluster, each with a WebSocket to its
/// node (the hello read), running `body(k, socket)` from the moment it is
/// made. Whatever a thread throws is collected as "node k: error", and
/// `failed(k)` runs so that whoever waits on that thread is released.
final class NodeClients {
    private let failureList = PthreadLocked([String]())
    private var threads: [Thread] = []

    init(ports: [Int], failed: @escaping @Sendable (Int) -> Void = { _ in }, _ body: @escaping @Sendable (Int, TestSocket) throws -> Void) {
        let failures = failureList
        threads = ports.enumerated().map { k, port in
            Thread {
                do {
                    let s = try TestSocket(port: port)
                    _ = try s.recvJSON()
                    try body(k, s)
                } catch {
                    failures.withLock { $0.append("node \(k): \(error)") }
                    failed(k)
                }
            }
        }
        threads.forEach { $0.start() }
    }

    var finished: Bool { threads.allSatisfy(\.isFinished) }
    var failures: [String] { failureList.withLock { $0 } }
}
