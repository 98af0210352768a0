import Dispatch
import Glibc
import Testing
import FoldSystem

/// A `SystemThread` runs its closure on a thread of its own, named for the
/// system before the closure starts.
@Suite struct SystemThreadTests {
    /// The calling thread's name as the kernel has it.
    static func currentName() -> String {
        let fd = open("/proc/thread-self/comm", O_RDONLY)
        guard fd >= 0 else { return "" }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 64)
        let n = read(fd, &buffer, buffer.count)
        return String(decoding: buffer.prefix(max(n, 0)), as: UTF8.self).trimmingBlanksAndNewline
    }

    @Test func theThreadIsNamedBeforeItsBodyRunsAndIsNotTheCaller() {
        let seen = Locked<(name: String, other: Bool)?>(nil)
        let done = DispatchSemaphore(value: 0)
        let caller = pthread_self()
        SystemThread.start(name: "foldsync-test-thread-name") {
            seen.withLock { $0 = (Self.currentName(), pthread_equal(pthread_self(), caller) == 0) }
            done.signal()
        }
        #expect(done.wait(timeout: .now() + 10) == .success)
        // The kernel keeps 15 bytes.
        #expect(seen.withLock { $0?.name } == "foldsync-test-t")
        #expect(seen.withLock { $0?.other } == true)
    }

    /// The kernel copies the name of the thread that starts one.
    @Test func anUnnamedThreadKeepsItsStartersName() {
        let name = Locked<String?>(nil)
        let done = DispatchSemaphore(value: 0)
        let starter = Self.currentName()
        SystemThread.start {
            name.withLock { $0 = Self.currentName() }
            done.signal()
        }
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(name.withLock { $0 } == starter)
    }
}

private extension String {
    var trimmingBlanksAndNewline: String {
        var s = Substring(self)
        while let last = s.last, last == "\n" || last == " " { s = s.dropLast() }
        return String(s)
    }
}
