import FoldTestSupport
import Foundation
import Glibc

/// A datagram socket the test owns as `$NOTIFY_SOCKET`: an abstract name
/// (`@...`, unique per test) or a path in a temporary directory. Collects
/// every sd_notify message the daemon sends; waits are bounded.
final class NotifySocket {
    let fd: Int32
    /// The value for `NOTIFY_SOCKET`.
    let address: String
    private var pathToRemove: String?
    /// Every datagram received so far, in order.
    private(set) var messages: [String] = []

    init(abstract: Bool) throws {
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { throw HarnessError("socket(AF_UNIX): errno \(errno)") }
        var bytes: [UInt8]
        if abstract {
            address = "@foldsync-test-\(UUID().uuidString)"
            bytes = Array(address.utf8)
            bytes[0] = 0
        } else {
            // sun_path holds 108 bytes: keep it short.
            let path = "/tmp/fsn-\(UUID().uuidString.prefix(8)).sock"
            address = path
            pathToRemove = path
            bytes = Array(path.utf8) + [0]
        }
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            for (i, b) in bytes.enumerated() { raw[i] = b }
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count)
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        // A throw from here on runs deinit, the descriptor's one close (see TestSocket).
        guard rc == 0 else { throw HarnessError("bind \(address): errno \(errno)") }
    }

    deinit {
        if fd >= 0 { close(fd) }
        if let pathToRemove { unlink(pathToRemove) }
    }

    /// Reads datagrams for at most `timeout` seconds, returning early once `until` holds.
    @discardableResult
    func collect(timeout: Double, until: ([String]) -> Bool = { _ in false }) -> [String] {
        let deadline = Date().addingTimeInterval(timeout)
        var buffer = [UInt8](repeating: 0, count: 65536)
        while !until(messages) {
            let ms = Int32(max(0, deadline.timeIntervalSinceNow * 1000))
            guard ms > 0 else { break }
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&p, 1, ms)
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { break }
            let n = recv(fd, &buffer, buffer.count, 0)
            if n > 0 { messages.append(String(decoding: buffer[0..<n], as: UTF8.self)) }
        }
        return messages
    }

    /// Waits until a message holding the line `line` arrives after index `from`; its index.
    func waitFor(line: String, from: Int = 0, timeout: Double = 10) -> Int? {
        collect(timeout: timeout) { msgs in
            msgs.indices.contains { $0 >= from && Self.lines(msgs[$0]).contains(line) }
        }
        return messages.indices.first { $0 >= from && Self.lines(messages[$0]).contains(line) }
    }

    static func lines(_ message: String) -> [String] {
        message.split(separator: "\n").map(String.init)
    }
}
