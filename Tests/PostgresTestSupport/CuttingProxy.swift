import Foundation
import Glibc

/// A TCP proxy on loopback between a daemon and PostgreSQL that reads the
/// frontend protocol and, when armed, cuts the connection that sends a
/// `COMMIT` — once, then it forwards everything again (new connections too,
/// so the daemon can reconnect through it).
///
/// Frontend protocol as read here: an untyped first message (Int32 length
/// including itself, Int32 code). An SSLRequest or GSSENCRequest is answered
/// `N` (no encryption) by the proxy itself, then the untyped StartupMessage
/// follows; after it every message is typed (1 byte, Int32 length including
/// itself). libpq sends `PQexec`'s text as a simple Query (`Q`), which is how
/// the daemon sends `COMMIT`.
///
/// Threads with blocking sockets: one accepting (polling, so `stop` ends it
/// within 100 ms), two per connection; `stop` shuts every socket down, which
/// ends their reads.
public final class CuttingProxy: @unchecked Sendable {
    /// Where the cut falls relative to the server's COMMIT.
    public enum Cut: Sendable {
        /// Both sockets closed before the COMMIT reaches the server: it rolls back.
        case beforeCommit
        /// The COMMIT forwarded, its answer withheld, both sockets closed once
        /// the server has had `settleMs` to commit: the change is in, the daemon cannot know.
        /// The next `refusing` connections after the cut are closed as soon as accepted
        /// (a link that is still down when the daemon comes back to read the outcome).
        case afterCommit(settleMs: Int, refusing: Int = 0)
    }

    public let port: Int
    private let upstreamPort: Int
    private let listener: Int32
    private let lock = NSLock()
    private var armed: Cut?
    private var stopped = false
    private var links: [Link] = []
    private var cutCount = 0
    private var toRefuse = 0
    private var refusedCount = 0
    private var acceptor: Thread?

    /// Listens on 127.0.0.1 on a free port and forwards to `upstreamPort` there.
    public init(upstreamPort: Int) throws {
        self.upstreamPort = upstreamPort
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw PostgresHarnessError("proxy socket: errno \(errno)") }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var addr = Self.loopback(port: 0)
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) == 0 && getsockname(fd, $0, &len) == 0 }
        }
        guard ok, listen(fd, 64) == 0 else {
            close(fd)
            throw PostgresHarnessError("proxy bind/listen: errno \(errno)")
        }
        listener = fd
        port = Int(UInt16(bigEndian: addr.sin_port))
        let t = Thread { [self] in acceptLoop() }
        acceptor = t
        t.start()
    }

    deinit { stop() }

    /// `uri` (a test server's) with its port replaced by the proxy's.
    public func route(_ uri: String) -> String {
        uri.replacingOccurrences(of: "127.0.0.1:\(upstreamPort)/", with: "127.0.0.1:\(port)/")
    }

    /// The next COMMIT on any connection is cut this way (once).
    public func arm(_ cut: Cut) { lock.withLock { armed = cut } }

    /// COMMITs cut so far.
    public var cuts: Int { lock.withLock { cutCount } }

    /// Connections closed as soon as accepted, after a cut `refusing` them.
    public var refused: Int { lock.withLock { refusedCount } }

    /// Waits (at most `timeout` s) until `count` COMMITs have been cut.
    public func waitForCuts(_ count: Int, timeout: Double = 10) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while cuts < count {
            if Date() > deadline { return false }
            usleep(10_000)
        }
        return true
    }

    /// Stops accepting and shuts every connection down.
    public func stop() {
        let open = lock.withLock { () -> [Link] in
            if stopped { return [] }
            stopped = true
            defer { links = [] }
            return links
        }
        open.forEach { $0.cut() }
        while acceptor?.isFinished == false { usleep(10_000) }
        acceptor = nil
        if listener >= 0 { close(listener) }
    }

    private var isStopped: Bool { lock.withLock { stopped } }

    private func acceptLoop() {
        while !isStopped {
            var p = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&p, 1, 100) > 0 else { continue }
            let client = accept(listener, nil, nil)
            guard client >= 0 else { continue }
            let refuse = lock.withLock { () -> Bool in
                guard toRefuse > 0 else { return false }
                toRefuse -= 1
                refusedCount += 1
                return true
            }
            if refuse { close(client); continue }
            let server = Self.connectLoopback(upstreamPort)
            guard server >= 0 else { close(client); continue }
            let link = Link(client: client, server: server)
            let keep = lock.withLock { () -> Bool in
                if stopped { return false }
                links.removeAll { $0.isCut }
                links.append(link)
                return true
            }
            guard keep else { link.cut(); continue }
            Thread { [self] in frontend(link) }.start()
        }
    }

    /// Daemon → server: parsed message by message, so a COMMIT can be caught.
    private func frontend(_ link: Link) {
        defer { link.cut() }
        // The untyped phase: encryption requests refused here, then the StartupMessage.
        while true {
            guard let head = link.readClient(4), let length = Self.int32(head), length >= 8, length < 10_000,
                  let rest = link.readClient(Int(length) - 4), let code = Self.int32(rest) else { return }
            if code == 80_877_103 || code == 80_877_104 {  // SSLRequest, GSSENCRequest
                guard link.writeClient([UInt8(ascii: "N")]) else { return }
                continue
            }
            guard link.writeServer(head + rest) else { return }
            break
        }
        Thread { Self.backend(link) }.start()
        while true {
            guard let head = link.readClient(5), let length = Self.int32(Array(head[1...])), length >= 4,
                  let body = link.readClient(Int(length) - 4) else { return }
            if head[0] == UInt8(ascii: "Q"), Self.isCommit(body), let cut = takeArmed() {
                switch cut {
                case .beforeCommit:
                    return
                case .afterCommit(let settleMs, let refusing):
                    link.mute()
                    _ = link.writeServer(head + body)
                    usleep(UInt32(settleMs) * 1_000)
                    lock.withLock { toRefuse = refusing }
                    return
                }
            }
            guard link.writeServer(head + body) else { return }
        }
    }

    /// Server → daemon: bytes as they come, unless the link is muted.
    private static func backend(_ link: Link) {
        defer { link.cut() }
        while let bytes = link.readServer() {
            if link.isMuted { continue }
            guard link.writeClient(bytes) else { return }
        }
    }

    private func takeArmed() -> Cut? {
        lock.withLock {
            guard let cut = armed else { return nil }
            armed = nil
            cutCount += 1
            return cut
        }
    }

    /// A Query body (NUL-terminated SQL) that is `COMMIT`, any case, spaces and `;` around it.
    static func isCommit(_ body: [UInt8]) -> Bool {
        let text = String(decoding: body.prefix { $0 != 0 }, as: UTF8.self)
        return text.trimmingCharacters(in: CharacterSet.whitespacesAndNewlines.union(CharacterSet(charactersIn: ";")))
            .uppercased() == "COMMIT"
    }

    static func int32(_ bytes: [UInt8]) -> Int32? {
        guard bytes.count >= 4 else { return nil }
        return Int32(bitPattern: UInt32(bytes[0]) << 24 | UInt32(bytes[1]) << 16 | UInt32(bytes[2]) << 8 | UInt32(bytes[3]))
    }

    static func loopback(port: Int) -> sockaddr_in {
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = UInt16(port).bigEndian
        return addr
    }

    static func connectLoopback(_ port: Int) -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return -1 }
        var addr = loopback(port: port)
        let ok = withUnsafePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        if !ok { close(fd); return -1 }
        return fd
    }
}

extension CuttingProxy {
/// One proxied connection: the daemon's socket and the server's. Cut means
/// both shut down (which ends the blocking reads of both threads); the
/// descriptors are closed when the last thread lets go of the link.
final class Link: @unchecked Sendable {
    let client: Int32, server: Int32
    private let lock = NSLock()
    private var muted = false, done = false

    init(client: Int32, server: Int32) {
        self.client = client
        self.server = server
    }

    deinit {
        close(client)
        close(server)
    }

    var isMuted: Bool { lock.withLock { muted } }
    var isCut: Bool { lock.withLock { done } }
    func mute() { lock.withLock { muted = true } }

    func cut() {
        lock.withLock { done = true }
        shutdown(client, Int32(SHUT_RDWR))
        shutdown(server, Int32(SHUT_RDWR))
    }

    func readClient(_ n: Int) -> [UInt8]? { Self.readExactly(client, n) }
    func readServer() -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: 16_384)
        let got = read(server, &buffer, buffer.count)
        return got > 0 ? Array(buffer[..<got]) : nil
    }
    func writeClient(_ bytes: [UInt8]) -> Bool { Self.writeAll(client, bytes) }
    func writeServer(_ bytes: [UInt8]) -> Bool { Self.writeAll(server, bytes) }

    static func readExactly(_ fd: Int32, _ n: Int) -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: n)
        var have = 0
        while have < n {
            let got = out.withUnsafeMutableBytes { read(fd, $0.baseAddress! + have, n - have) }
            if got <= 0 { return nil }
            have += got
        }
        return out
    }

    static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let n = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return false }
            sent += n
        }
        return true
    }
}
}
