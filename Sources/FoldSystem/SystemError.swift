import Glibc

/// A system call that failed: which one, and its errno. The one error type
/// for the C library's `-1`-and-errno calls, in the daemon, the transport's
/// writer and the benchmark alike.
public struct SystemError: Error, Equatable, CustomStringConvertible {
    /// The call (or what it was for), as a reader of the log would search for it.
    public let call: String
    public let errno: Int32

    public init(call: String, errno: Int32) {
        self.call = call
        self.errno = errno
    }

    public var description: String { "\(call): \(String(cString: strerror(errno))) (errno \(errno))" }
}

/// The one checker for errno-returning calls, and the only place in the
/// tree that reads `errno` (a layering test holds every other file to it):
/// `-1` becomes a `SystemError` with the errno of that moment; EINTR (a
/// signal arrived) is retried, since no caller here wants to see it; an
/// errno only a bug can cause (EFAULT: a pointer the call could not use)
/// stops the process rather than be handled as a failure of the world.
/// Inlinable: the writer calls it for every send, specialized there.
@inlinable @discardableResult
public func systemCall<T: FixedWidthInteger & SignedInteger>(_ call: String, _ body: () -> T) throws(SystemError) -> T {
    while true {
        let result = body()
        guard result == -1 else { return result }
        let code = Glibc.errno
        precondition(code != EFAULT, "\(call): EFAULT, a bad address: a bug, not a failure")
        guard code == EINTR else { throw SystemError(call: call, errno: code) }
    }
}

/// `systemCall` for a descriptor in non-blocking mode: nil when the call
/// would block (EAGAIN, EWOULDBLOCK), which is no failure there.
@inlinable
public func nonBlockingCall<T: FixedWidthInteger & SignedInteger>(_ call: String, _ body: () -> T) throws(SystemError) -> T? {
    do {
        return try systemCall(call, body)
    } catch where error.errno == EAGAIN || error.errno == EWOULDBLOCK {
        return nil
    }
}

/// Sets `sig`'s disposition to ignore (so a dispatch source alone sees it).
/// `sigaction` rather than `signal`: its result is an int the checker reads.
public func ignoreSignal(_ sig: Int32) throws(SystemError) {
    var action = sigaction()
    action.__sigaction_handler.sa_handler = SIG_IGN
    sigemptyset(&action.sa_mask)
    try systemCall("sigaction(\(sig), SIG_IGN)") { sigaction(sig, &action, nil) }
}
