import FoldSystem
import Glibc

/// Writes to stderr with plain `write(2)`, unbuffered: a log line or a
/// message goes out whole in one call (pipes and the journal take up to
/// PIPE_BUF bytes at once), from any thread. A failed write (stderr closed)
/// is dropped: there is nowhere else to say so.
enum StandardError {
    static func write(_ text: String) {
        var bytes = Array(text.utf8)
        bytes.withUnsafeMutableBytes { raw in
            var offset = 0
            while offset < raw.count {
                guard let n = try? systemCall("write", { Glibc.write(2, raw.baseAddress! + offset, raw.count - offset) }), n > 0 else { return }
                offset += n
            }
        }
    }
}
