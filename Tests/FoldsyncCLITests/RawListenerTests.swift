import FoldTestSupport
import Foundation
import Glibc
import Testing

/// A bare TCP listener on 127.0.0.1 that records the first request it gets
/// and then closes the connection, or holds it without answering.
final class RawListener: Sendable {
    let fd: Int32
    let port: Int
    let captured = DataBox()

    init(hold: Bool) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard fd >= 0, bound == 0, listen(fd, 4) == 0 else { throw HarnessError("cannot listen") }
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
        }
        self.fd = fd
        port = Int(UInt16(bigEndian: addr.sin_port))
        let listener = fd
        let box = captured
        DispatchQueue.global().async {
            let c = accept(listener, nil, nil)
            guard c >= 0 else { return }
            var buf = [UInt8](repeating: 0, count: 4096)
            let n = read(c, &buf, buf.count)
            box.set(Data(buf[0..<max(n, 0)]))
            if hold { sleep(30) }
            close(c)
        }
    }

    deinit { close(fd) }
}

@Suite struct RawListenerTests {
    /// `--token` travels as `Authorization: Bearer` on the upgrade request.
    @Test func tokenIsSentAsABearerHeader() throws {
        let l = try RawListener(hold: false)
        let r = try foldsync(["show", "--url", "ws://127.0.0.1:\(l.port)/ws", "--token", "s3cret", "--timeout", "2"])
        #expect(r.status == 1)
        let request = String(decoding: l.captured.get(), as: UTF8.self).lowercased()
        #expect(request.hasPrefix("get /ws http/1.1\r\n"))
        #expect(request.contains("authorization: bearer s3cret\r\n"))
        #expect(request.contains("sec-websocket-protocol: foldsync.v1\r\n"))
    }

    /// A server that accepts and never answers: the command gives up after
    /// `--timeout` with exit status 1 and one line.
    @Test func silentServerTimesOut() throws {
        let l = try RawListener(hold: true)
        let start = Date()
        let r = try foldsync(["toggle", "s0", "--url", "ws://127.0.0.1:\(l.port)/ws", "--timeout", "1"])
        let took = Date().timeIntervalSince(start)
        #expect(r.status == 1)
        #expect(r.stderr.hasPrefix("foldsync: "))
        #expect(r.stderr.split(separator: "\n").count == 1)
        // It gave up by itself (a hang would be killed by the harness, not exit 1),
        // and not before its timeout: it waited for an answer.
        #expect(took >= 1, "gave up after \(took) s, before its --timeout of 1 s")
    }
}
