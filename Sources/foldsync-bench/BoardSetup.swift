import FoldCore
import Glibc

/// Creates the benchmark's boards over HTTP before the run: one blocking
/// request each, with a bounded wait.
enum BoardSetup {
    /// A board of `sections` sections `s0`..., each with `items` string items (multi mode unless `single`).
    static func document(sections: Int, items: Int, single: Bool = false) -> [UInt8] {
        var out = Array(#"{"mode":"\#(single ? "single" : "multi")","sections":["#.utf8)
        for s in 0..<sections {
            if s > 0 { out.append(UInt8(ascii: ",")) }
            out += Array(#"{"id":"s"#.utf8)
            JSONWriter.appendInt(s, to: &out)
            out += Array(#"","title":"#.utf8)
            JSONWriter.appendString("section \(s)", to: &out)
            out += Array(#","items":["#.utf8)
            for i in 0..<items {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                JSONWriter.appendString("item \(s).\(i)", to: &out)
            }
            out += Array(#"],"expanded":false}"#.utf8)
        }
        out += Array("]}".utf8)
        return out
    }

    /// `PUT /api/boards/NAME`; returns nil on success, else what went wrong.
    static func put(board: String, body: [UInt8], host: String, port: Int, timeoutSeconds: Int = 30) -> String? {
        let head = "PUT /api/boards/\(board) HTTP/1.1\r\nHost: \(host):\(port)\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        guard let response = exchange(Array(head.utf8) + body, host: host, port: port, timeoutSeconds: timeoutSeconds) else {
            return "no answer from \(host):\(port)"
        }
        let text = String(decoding: response.prefix(512), as: UTF8.self)
        guard text.hasPrefix("HTTP/1.1 200") || text.hasPrefix("HTTP/1.1 201") else {
            return "PUT /api/boards/\(board) answered: \(text.split(separator: "\r\n").first ?? "") \(String(decoding: response.suffix(200), as: UTF8.self))"
        }
        return nil
    }

    /// Whether a response with a Content-Length has all of its body.
    static func isComplete(_ r: [UInt8]) -> Bool {
        let end: Int = r.withUnsafeBufferPointer { Scan.find("\r\n\r\n", in: $0.baseAddress!, from: 0, to: $0.count) }
        guard end >= 0 else { return false }
        let head = String(decoding: r[0..<end], as: UTF8.self).lowercased()
        guard let cl = head.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") }),
              let n = Int(String(cl.dropFirst("content-length:".count).filter { $0 != " " }))
        else { return false }
        return r.count - (end + 4) >= n
    }

    /// Sends `request` on a fresh blocking socket and reads until the peer closes.
    static func exchange(_ request: [UInt8], host: String, port: Int, timeoutSeconds: Int) -> [UInt8]? {
        guard var addr = System.ipv4(host: host, port: port) else { return nil }
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var tv = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard rc == 0 else { return nil }
        var sent = 0
        while sent < request.count {
            let n = request.withUnsafeBytes { send(fd, $0.baseAddress! + sent, request.count - sent, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return nil }
            sent += n
        }
        var response: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 16384)
        while true {
            let n = buf.withUnsafeMutableBytes { recv(fd, $0.baseAddress!, $0.count, 0) }
            if n <= 0 { break }
            response += buf[0..<n]
            if response.count > 16 << 20 || isComplete(response) { break }
        }
        return response.isEmpty ? nil : response
    }

    /// `GET /api/boards/NAME`: the answer's JSON (board, epoch, rev, state), nil when not 200.
    static func get(board: String, host: String, port: Int) -> JSON? {
        let head = "GET /api/boards/\(board) HTTP/1.1\r\nHost: \(host):\(port)\r\nConnection: close\r\n\r\n"
        guard let r = exchange(Array(head.utf8), host: host, port: port, timeoutSeconds: 10),
              String(decoding: r.prefix(12), as: UTF8.self) == "HTTP/1.1 200" else { return nil }
        let end: Int = r.withUnsafeBufferPointer { Scan.find("\r\n\r\n", in: $0.baseAddress!, from: 0, to: $0.count) }
        guard end >= 0 else { return nil }
        return try? JSONParser.parse(Array(r[(end + 4)...]), maxDepth: 64)
    }

    /// Creates the board on the first node, then waits (bounded) until every
    /// node shows it at the same epoch and rev: a subscriber must not get the
    /// old board's snapshot. Nil on success, else what went wrong.
    static func putEverywhere(board: String, body: [UInt8], nodes: [BenchConfig.Node], home: Int) -> String? {
        let h = nodes[home]
        if let why = put(board: board, body: body, host: h.host, port: h.port) { return why }
        guard let created = get(board: board, host: h.host, port: h.port), let epoch = created["epoch"]?.stringValue else {
            return "board '\(board)' not readable after its PUT"
        }
        let deadline = System.nowNs() + 30_000_000_000
        for n in nodes {
            while get(board: board, host: n.host, port: n.port)?["epoch"]?.stringValue != epoch {
                if System.nowNs() > deadline { return "\(n.url) did not show board '\(board)' at epoch \(epoch) within 30 s" }
                usleep(20_000)
            }
        }
        return nil
    }
}
