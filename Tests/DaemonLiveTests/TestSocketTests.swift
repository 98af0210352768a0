import FoldTestSupport
import Foundation
import Glibc
import Testing

/// The harness's own client: a socket that fails to connect closes its
/// descriptor once. The test runner runs many tests at once in one process;
/// a second close lands on whatever descriptor another test opened with the
/// freed number, and that test then talks to nobody, or to another daemon.
@Suite struct TestSocketTests {
    /// A port that refuses at once: bound to 127.0.0.1, never listening.
    /// The caller closes the descriptor.
    static func refusingPort() throws -> (fd: Int32, port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw HarnessError("socket: errno \(errno)") }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) == 0 && getsockname(fd, $0, &len) == 0 }
        }
        guard ok else {
            close(fd)
            throw HarnessError("bind: errno \(errno)")
        }
        return (fd, Int(UInt16(bigEndian: addr.sin_port)))
    }

    @Test func aRefusedConnectLeavesOtherThreadsDescriptorsOpen() throws {
        let (held, port) = try Self.refusingPort()
        defer { close(held) }

        // Another thread opens pipes over and over and checks that each is
        // still open before closing it: the freed numbers it takes are the
        // ones the failing connects just gave back.
        let done = PthreadLocked(false), lost = PthreadLocked(0), checked = PthreadLocked(0)
        let stopped = DispatchSemaphore(value: 0)
        let watcher = Thread {
            var fds: [Int32] = [0, 0]
            while !done.withLock({ $0 }) {
                guard pipe(&fds) == 0 else { continue }
                for _ in 0..<20 { sched_yield() }
                let gone = fds.filter { fcntl($0, F_GETFD) == -1 }.count
                lost.withLock { $0 += gone }
                checked.withLock { $0 += 1 }
                close(fds[0])
                close(fds[1])
            }
            stopped.signal()
        }
        watcher.start()

        // Up to 30,000 connects in 8 s, and on until the watcher has checked
        // 1,000 pipes (it gets little of the machine beside other tests), up to 30 s.
        let start = Date()
        var attempts = 0
        var refusals = 0
        var otherwise: [String] = []
        func enough() -> Bool {
            let elapsed = Date().timeIntervalSince(start)
            if elapsed > 30 { return true }
            return (attempts >= 30_000 || elapsed > 8) && checked.withLock({ $0 }) > 1_000
        }
        while !enough() {
            attempts += 1
            do {
                _ = try TestSocket(port: port)
                otherwise.append("connected")
            } catch {
                // A descriptor closed under this thread fails with EBADF instead.
                if "\(error)".hasSuffix("errno \(ECONNREFUSED)") { refusals += 1 } else { otherwise.append("\(error)") }
            }
        }
        done.withLock { $0 = true }
        #expect(stopped.wait(timeout: .now() + 5) == .success, "the watcher thread did not stop")

        #expect(refusals == attempts, "every connect is refused: \(refusals) of \(attempts); else \(Set(otherwise))")
        #expect(checked.withLock { $0 } > 1_000, "the watcher checked only \(checked.withLock { $0 }) pipes")
        #expect(lost.withLock { $0 } == 0, "\(lost.withLock { $0 }) of another thread's descriptors were closed under it in \(attempts) refused connects")
    }
}
