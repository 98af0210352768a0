import Foundation
import Glibc

/// A TCP server on loopback that accepts connections, reads what they send
/// and never answers: to a PostgreSQL client, a server that hangs after the
/// handshake. Counts the bytes each connection sent and notes when the
/// client closed its end, so a test can tell that the client really
/// connected and waited, and when it gave up.
///
/// One thread, polling every socket (so `stop` ends it within 50 ms);
/// `stop` closes everything, which a client still waiting sees as EOF.
public final class SilentServer: @unchecked Sendable {
    public let port: Int
    private let listener: Int32
    private let lock = NSLock()
    private var peers: [(fd: Int32, received: Int, closedAt: Date?)] = []
    private var stopped = false
    private let done = DispatchSemaphore(value: 0)

    public init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw PostgresHarnessError("silent server socket: errno \(errno)") }
        var addr = CuttingProxy.loopback(port: 0)
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) == 0 && getsockname(fd, $0, &len) == 0 }
        }
        guard ok, listen(fd, 16) == 0 else {
            close(fd)
            throw PostgresHarnessError("silent server bind/listen: errno \(errno)")
        }
        listener = fd
        port = Int(UInt16(bigEndian: addr.sin_port))
        Thread { [self] in serve() }.start()
    }

    deinit { stop() }

    /// Connections accepted so far.
    public var accepted: Int { lock.withLock { peers.count } }

    /// Bytes the first connection sent (a PostgreSQL startup or SSL request: at least 8).
    public var firstReceived: Int { lock.withLock { peers.first?.received ?? 0 } }

    /// When the first connection's client closed its end, if it has.
    public var firstClosedAt: Date? { lock.withLock { peers.first?.closedAt } }

    /// Closes the listener and every connection; returns once the thread has ended.
    public func stop() {
        let first = lock.withLock { () -> Bool in
            defer { stopped = true }
            return !stopped
        }
        guard first else { return }
        done.wait()
    }

    private func serve() {
        defer {
            lock.withLock { for p in peers { close(p.fd) } }
            close(listener)
            done.signal()
        }
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !lock.withLock({ stopped }) {
            var fds = [pollfd(fd: listener, events: Int16(POLLIN), revents: 0)]
            lock.withLock { for p in peers where p.closedAt == nil { fds.append(pollfd(fd: p.fd, events: Int16(POLLIN), revents: 0)) } }
            guard poll(&fds, nfds_t(fds.count), 50) > 0 else { continue }
            if fds[0].revents != 0 {
                let c = accept(listener, nil, nil)
                if c >= 0 { lock.withLock { peers.append((c, 0, nil)) } }
            }
            for f in fds.dropFirst() where f.revents != 0 {
                let n = read(f.fd, &buffer, buffer.count)
                lock.withLock {
                    guard let i = peers.firstIndex(where: { $0.fd == f.fd }) else { return }
                    if n > 0 { peers[i].received += n } else { peers[i].closedAt = Date() }
                }
            }
        }
    }
}
