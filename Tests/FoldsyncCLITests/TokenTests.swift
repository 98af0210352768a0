import Foundation
import Glibc
import Testing

@Suite struct TokenTests {
    /// `--token` travels as `Authorization: Bearer` on the upgrade request:
    /// a bare TCP listener captures the request and answers nothing.
    @Test func tokenIsSentAsABearerHeader() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #expect(fd >= 0)
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = 0
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        #expect(bound == 0)
        #expect(listen(fd, 1) == 0)
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
        }
        let port = Int(UInt16(bigEndian: addr.sin_port))
        let captured = DataBox()
        let listener = fd
        DispatchQueue.global().async {
            let c = accept(listener, nil, nil)
            guard c >= 0 else { return }
            var buf = [UInt8](repeating: 0, count: 4096)
            let n = read(c, &buf, buf.count)
            captured.set(Data(buf[0..<max(n, 0)]))
            close(c)
        }
        let r = try foldsync(["show", "--url", "ws://127.0.0.1:\(port)/ws", "--token", "s3cret", "--timeout", "2"])
        #expect(r.status == 1)
        let request = String(decoding: captured.get(), as: UTF8.self).lowercased()
        #expect(request.contains("authorization: bearer s3cret\r\n"))
        #expect(request.contains("sec-websocket-protocol: foldsync.v1\r\n"))
        #expect(request.hasPrefix("get /ws http/1.1\r\n"))
    }
}
