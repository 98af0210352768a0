import FoldCore
import FoldTestSupport
import Foundation
import Glibc

/// One HTTP answer: status, lower-cased headers, body.
struct HTTPReply {
    var status: Int
    var headers: [String: String]
    var body: [UInt8]

    var text: String { String(decoding: body, as: UTF8.self) }

    func json() throws -> JSON { try JSONParser.parse(body, maxDepth: 512) }
}

/// A minimal HTTP/1.1 client over a raw socket: one request per connection
/// (`Connection: close`), body read by Content-Length or to EOF, bounded waits.
enum HTTPClient {
    /// A TCP connection to 127.0.0.1:`port`; the caller closes it.
    static func connectTCP(port: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw HarnessError("socket: errno \(errno)") }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(port).bigEndian)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard rc == 0 else {
            close(fd)
            throw HarnessError("connect to port \(port): errno \(errno)")
        }
        return fd
    }

    static func request(port: Int, method: String, path: String, body: String? = nil,
                        headers extra: [(String, String)] = [], timeout: Double = 10) throws -> HTTPReply {
        let fd = try connectTCP(port: port)
        defer { close(fd) }

        let payload = Array((body ?? "").utf8)
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        if body != nil { head += "Content-Type: application/json\r\nContent-Length: \(payload.count)\r\n" }
        for (name, value) in extra { head += "\(name): \(value)\r\n" }
        let request = Array((head + "\r\n").utf8) + payload
        var off = 0
        while off < request.count {
            let n = request[off...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw HarnessError("send: errno \(errno)") }
            off += n
        }

        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        let deadline = Date().addingTimeInterval(timeout)
        var parsed: (status: Int, headers: [String: String], bodyStart: Int)?
        while true {
            if parsed == nil, let r = data.firstRange(of: Array("\r\n\r\n".utf8)) {
                let lines = String(decoding: data[..<r.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
                let status = lines.first.flatMap { $0.split(separator: " ").dropFirst().first }.flatMap { Int($0) } ?? 0
                var headers: [String: String] = [:]
                for line in lines.dropFirst() {
                    let kv = line.split(separator: ":", maxSplits: 1)
                    if kv.count == 2 { headers[kv[0].lowercased()] = kv[1].trimmingCharacters(in: .whitespaces) }
                }
                parsed = (status, headers, r.upperBound)
            }
            if let p = parsed, let length = p.headers["content-length"].flatMap({ Int($0) }),
               data.count - p.bodyStart >= length {
                return HTTPReply(status: p.status, headers: p.headers, body: Array(data[p.bodyStart..<(p.bodyStart + length)]))
            }
            if let p = parsed, p.status == 204 || p.status == 304 || method == "HEAD" {
                return HTTPReply(status: p.status, headers: p.headers, body: [])
            }
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ms = Int32(max(0, deadline.timeIntervalSinceNow * 1000))
            guard poll(&pfd, 1, ms) > 0 else { throw HarnessError("\(method) \(path): no complete answer within \(timeout) s") }
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 {
                guard let p = parsed else { throw HarnessError("\(method) \(path): connection closed before an answer") }
                return HTTPReply(status: p.status, headers: p.headers, body: Array(data[p.bodyStart...]))
            }
            data += buffer[0..<n]
        }
    }
}
