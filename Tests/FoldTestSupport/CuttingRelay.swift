import Foundation
import Glibc

/// A TCP relay on 127.0.0.1 between a WebSocket client and the daemon that
/// can cut the link at the worst moments for an action: right after
/// forwarding a client frame that carries a `key` (the daemon commits it,
/// its answer is lost), or instead of forwarding it. It can also refuse new
/// connections, as a network that is down does. Reads client frames (masked,
/// RFC 6455) to find the keyed one; forwards everything else untouched.
public final class CuttingRelay: @unchecked Sendable {
    public enum Cut: Sendable {
        /// Forward the next keyed action, then cut before its answer comes back.
        case afterForwarding
        /// Drop the next keyed action, then cut.
        case instead
    }

    public let port: UInt16
    private let target: UInt16
    private let listener: Int32
    private let lock = NSLock()
    private var plan: Cut?
    private var refuseAfterCut = false
    private var refusing = false
    private var links: [Int32: Int32] = [:]
    private var stopped = false
    private var holding = false

    public init(to target: UInt16) throws {
        self.target = target
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var addr = Self.loopback(0)
        let bound = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard bound == 0, listen(fd, 64) == 0 else { throw HarnessError("relay: cannot listen: errno \(errno)") }
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }
        listener = fd
        port = UInt16(bigEndian: addr.sin_port)
        let t = Thread { [self] in acceptLoop() }
        t.name = "relay-accept"
        t.start()
    }

    /// Cuts at the next keyed action; with `thenRefuse`, new connections are
    /// refused from then on until `accept()`.
    public func cutNext(_ cut: Cut, thenRefuse: Bool = false) {
        lock.withLock {
            plan = cut
            refuseAfterCut = thenRefuse
        }
    }

    /// Ends every link now and refuses new ones until `accept()`.
    public func goDown() {
        let pairs = lock.withLock { () -> [(Int32, Int32)] in
            refusing = true
            plan = nil
            return links.map { ($0.key, $0.value) }
        }
        for (a, b) in pairs { Self.cut(a, b) }
    }

    /// Holds back everything the daemon sends (its patches and answers)
    /// until `releaseAnswers()`: a link as slow as a test needs, where what
    /// a client shows before its answer can be seen.
    public func holdAnswers() { lock.withLock { holding = true } }
    public func releaseAnswers() { lock.withLock { holding = false } }

    /// Takes new connections again.
    public func accept() { lock.withLock { refusing = false } }

    /// Idempotent: the listener is closed once (a second close could hit a descriptor reused meanwhile).
    public func stop() {
        guard lock.withLock({ () -> Bool in defer { stopped = true }; return !stopped }) else { return }
        goDown()
        // The accept thread closes it on its way out: never a descriptor that thread might still use.
        shutdown(listener, Int32(SHUT_RDWR))
    }

    deinit { stop() }

    private static func loopback(_ port: UInt16) -> sockaddr_in {
        var a = sockaddr_in()
        a.sin_family = sa_family_t(AF_INET)
        a.sin_port = port.bigEndian
        a.sin_addr.s_addr = inet_addr("127.0.0.1")
        return a
    }

    private static func cut(_ a: Int32, _ b: Int32) {
        shutdown(a, Int32(SHUT_RDWR))
        shutdown(b, Int32(SHUT_RDWR))
    }

    private func acceptLoop() {
        while true {
            let client = Glibc.accept(listener, nil, nil)
            if client < 0 {
                if lock.withLock({ stopped }) {
                    close(listener)
                    return
                }
                continue
            }
            if lock.withLock({ refusing || stopped }) {
                close(client)
                continue
            }
            let daemon = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var addr = Self.loopback(target)
            let ok = withUnsafePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(daemon, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
            guard ok == 0 else {
                close(client)
                close(daemon)
                continue
            }
            lock.withLock { links[client] = daemon }
            let up = Thread { [self] in upstream(client, daemon) }
            up.start()
            let down = Thread { [self] in downstream(daemon, client); finish(client, daemon) }
            down.start()
        }
    }

    /// Client to daemon: the handshake as it is, then frame by frame.
    private func upstream(_ client: Int32, _ daemon: Int32) {
        var buffer: [UInt8] = []
        var handshaken = false
        var chunk = [UInt8](repeating: 0, count: 65536)
        reading: while true {
            let n = read(client, &chunk, chunk.count)
            if n <= 0 { break }
            buffer += chunk[0..<n]
            if !handshaken {
                guard let end = Self.headersEnd(buffer) else { continue }
                guard Self.writeAll(daemon, Array(buffer[..<end])) else { break }
                buffer.removeFirst(end)
                handshaken = true
            }
            while let (length, payload) = Self.frame(buffer) {
                let frame = Array(buffer[..<length])
                buffer.removeFirst(length)
                let text = String(decoding: payload, as: UTF8.self)
                let keyed = text.contains("\"key\"") && !text.contains("\"settle\"")
                let cut = keyed ? lock.withLock { () -> Cut? in
                    defer { plan = nil }
                    if plan != nil && refuseAfterCut { refusing = true }
                    return plan
                } : nil
                if cut != .instead, !Self.writeAll(daemon, frame) { break reading }
                if cut != nil {
                    // Before anything more reaches the client: its answer is lost with the link.
                    Self.cut(client, daemon)
                    break reading
                }
            }
        }
        finish(client, daemon)
    }

    private func finish(_ client: Int32, _ daemon: Int32) {
        let mine = lock.withLock { links.removeValue(forKey: client) != nil }
        Self.cut(client, daemon)
        if mine {
            // The other direction's thread has seen the shutdown by now or will at its next read.
            usleep(50_000)
            close(client)
            close(daemon)
        }
    }

    /// Daemon to client, as it comes, unless held.
    private func downstream(_ from: Int32, _ to: Int32) {
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = read(from, &chunk, chunk.count)
            if n <= 0 { return }
            while lock.withLock({ holding && !stopped }) { usleep(2_000) }
            if !Self.writeAll(to, Array(chunk[0..<n])) { return }
        }
    }

    private static func writeAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var off = 0
        while off < bytes.count {
            // MSG_NOSIGNAL: a peer gone mid-write is a failed write, not a SIGPIPE that ends the test process.
            let n = bytes[off...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return false }
            off += n
        }
        return true
    }

    private static func headersEnd(_ b: [UInt8]) -> Int? {
        guard b.count >= 4 else { return nil }
        for i in 3..<b.count where b[i - 3] == 13 && b[i - 2] == 10 && b[i - 1] == 13 && b[i] == 10 { return i + 1 }
        return nil
    }

    /// A whole client frame at the start of `b`: its length and its unmasked payload.
    private static func frame(_ b: [UInt8]) -> (Int, [UInt8])? {
        guard b.count >= 2 else { return nil }
        var len = Int(b[1] & 0x7F)
        var at = 2
        if len == 126 {
            guard b.count >= 4 else { return nil }
            len = Int(b[2]) << 8 | Int(b[3])
            at = 4
        } else if len == 127 {
            guard b.count >= 10 else { return nil }
            len = (2..<10).reduce(0) { $0 << 8 | Int(b[$1]) }
            at = 10
        }
        let masked = b[1] & 0x80 != 0
        let mask = masked ? Array(b[at..<min(at + 4, b.count)]) : []
        if masked { at += 4 }
        guard b.count >= at + len else { return nil }
        let payload = (0..<len).map { i in masked ? b[at + i] ^ mask[i % 4] : b[at + i] }
        return (at + len, payload)
    }
}
