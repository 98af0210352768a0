import FoldSystem
import Glibc

/// One Swift wrapper per C call the benchmark makes: errno becomes a
/// `SystemError`, and EAGAIN/EINTR become a value the caller handles.
enum System {
    /// CLOCK_MONOTONIC in nanoseconds: the clock every timestamp uses.
    @inline(__always)
    static func nowNs() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }

    static func check(_ rc: @autoclosure () -> Int32, _ call: String) throws -> Int32 {
        try systemCall(call, rc)
    }

    /// A non-blocking TCP socket connecting to `address`. Returns the fd;
    /// the connect completes when the socket becomes writable.
    static func startConnect(_ address: sockaddr_in) throws -> Int32 {
        let fd = try check(socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0), "socket")
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        var a = address
        do {
            try systemCall("connect") {
                withUnsafePointer(to: &a) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
                }
            }
        } catch where error.errno == EINPROGRESS {
            // Non-blocking: it completes when the socket becomes writable.
        } catch {
            close(fd)
            throw error
        }
        return fd
    }

    /// The pending error of a non-blocking connect (0 when it succeeded).
    static func socketError(_ fd: Int32) -> Int32 {
        var err: Int32 = 0
        var len = socklen_t(MemoryLayout<Int32>.size)
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len)
        return err
    }

    static func ipv4(host: String, port: Int) -> sockaddr_in? {
        var a = sockaddr_in()
        a.sin_family = sa_family_t(AF_INET)
        a.sin_port = UInt16(port).bigEndian
        guard inet_pton(AF_INET, host, &a.sin_addr) == 1 else { return nil }
        return a
    }

}

/// The outcome of a non-blocking read or write.
enum IOResult {
    case done(Int)
    case wouldBlock
    case closed
    case failed(Int32)
}

extension System {
    @inline(__always)
    static func read(_ fd: Int32, _ buf: UnsafeMutableRawPointer, _ count: Int) -> IOResult {
        do {
            guard let n = try nonBlockingCall("read", { Glibc.read(fd, buf, count) }) else { return .wouldBlock }
            return n == 0 ? .closed : .done(n)
        } catch {
            return .failed(error.errno)
        }
    }

    @inline(__always)
    static func write(_ fd: Int32, _ buf: UnsafeRawPointer, _ count: Int) -> IOResult {
        do {
            guard let n = try nonBlockingCall("send", { send(fd, buf, count, Int32(MSG_NOSIGNAL)) }) else { return .wouldBlock }
            return .done(n)
        } catch {
            return .failed(error.errno)
        }
    }
}

extension System {
    /// CPU time (user + system) of this whole process, in nanoseconds.
    static func processCPUNs() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }
}
