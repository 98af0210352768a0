import Glibc
import Testing
import FoldSystem

/// The daemon's one errno checker, without a daemon.
@Suite struct SystemCallTests {
    @Test func aFailureCarriesItsErrno() {
        #expect(throws: SystemError(call: "close(-1)", errno: EBADF)) { try systemCall("close(-1)") { close(-1) } }
    }

    @Test func successReturnsTheResult() throws {
        #expect(try systemCall("getpid") { getpid() } == getpid())
    }

    @Test func anInterruptedCallIsRetried() throws {
        var calls = 0
        let result = try systemCall("interrupted") { () -> Int32 in
            calls += 1
            if calls == 1 { errno = EINTR; return -1 }
            return 7
        }
        #expect(result == 7 && calls == 2)
    }
}
