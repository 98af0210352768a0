import Glibc
import FoldSystem

/// Writing to stdout and stderr with plain `write(2)`: unbuffered, so every
/// line is out when the call returns (what `watch` piped into another
/// program needs), and a closed pipe shows up as a failed write (lws
/// ignores SIGPIPE) instead of killing the process.
enum Output {
    /// Writes everything; false when the reader has gone (EPIPE) or another error.
    @discardableResult
    static func write(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { raw -> Bool in
            var offset = 0
            while offset < raw.count {
                guard let n = try? systemCall("write", { Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset) }) else { return false }
                offset += n
            }
            return true
        }
    }

    @discardableResult
    static func out(_ text: String) -> Bool { write(1, Array(text.utf8)) }

    /// One line on stderr, prefixed with the program name.
    static func fail(_ message: String) { write(2, Array("foldsync: \(message)\n".utf8)) }
}
