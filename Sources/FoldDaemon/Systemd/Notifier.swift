import FoldSystem
import Glibc

/// The sd_notify protocol, spoken directly (no libsystemd): each message is
/// one datagram to `$NOTIFY_SOCKET`, a path or, with a leading `@`, an
/// abstract socket. Without the variable every call is a no-op.
/// Any thread: each send opens, sends and closes its own socket.
public struct Notifier: Sendable {
    public let socketPath: String?
    /// Half of `$WATCHDOG_USEC` (systemd's advice), when a watchdog is set.
    public let watchdogIntervalUs: Int64?

    public init(environment: [String: String]) {
        let path = environment["NOTIFY_SOCKET"].flatMap { $0.isEmpty ? nil : $0 }
        socketPath = path
        if path != nil, let usec = environment["WATCHDOG_USEC"].flatMap(Int64.init), usec > 0 {
            watchdogIntervalUs = usec / 2
        } else {
            watchdogIntervalUs = nil
        }
    }

    /// Sends one message; a no-op without `$NOTIFY_SOCKET`. A failure is
    /// the caller's to log: systemd treats a lost message as not sent.
    public func send(_ message: String) throws(SystemError) {
        guard let socketPath else { return }
        let fd = try systemCall("socket(AF_UNIX)") {
            socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        }
        defer { close(fd) }
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        var pathBytes = Array(socketPath.utf8)
        if pathBytes.first == UInt8(ascii: "@") { pathBytes[0] = 0 }  // abstract namespace
        let capacity = MemoryLayout.size(ofValue: addr.sun_path)
        guard pathBytes.count < capacity else { throw SystemError(call: "NOTIFY_SOCKET \(socketPath)", errno: ENAMETOOLONG) }
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            for (i, b) in pathBytes.enumerated() { raw[i] = b }
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + pathBytes.count + (pathBytes.first == 0 ? 0 : 1))
        let payload = Array(message.utf8)
        let sent = try systemCall("sendto(NOTIFY_SOCKET)") {
            withUnsafePointer(to: &addr) { p in
                p.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in
                    sendto(fd, payload, payload.count, Int32(MSG_NOSIGNAL), sa, length)
                }
            }
        }
        // A datagram goes whole or not at all; a short count would be a kernel bug.
        precondition(sent == payload.count, "sendto sent \(sent) of \(payload.count) bytes")
    }
}
