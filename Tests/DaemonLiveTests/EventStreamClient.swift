import FoldCore
import FoldTestSupport
import Foundation
import Glibc

/// A raw HTTP client of the event stream, written for the tests from the
/// WHATWG format: it sends `GET /api/boards/NAME/events`, reads the status
/// and headers, then parses events (`event:`, `id:`, `data:`, comments) as
/// they come. `receiveBuffer` makes it a slow reader when it stops reading.
final class EventStreamClient {
    struct Event {
        var type: String
        var id: String?
        var data: String
        var json: JSON? { try? JSONParser.parse(Array(data.utf8), maxDepth: 512) }
    }

    let fd: Int32
    private(set) var status = 0
    private(set) var headers: [String: String] = [:]
    private(set) var comments: [String] = []
    private var buffer: [UInt8] = []
    private(set) var eof = false

    init(port: Int, path: String, headers extra: [(String, String)] = [], receiveBuffer: Int? = nil) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw HarnessError("socket: errno \(errno)") }
        if var size = receiveBuffer.map(Int32.init) {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(port).bigEndian)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        // A throw from here on runs deinit, the descriptor's one close (see TestSocket).
        guard rc == 0 else { throw HarnessError("connect: errno \(errno)") }
        var request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAccept: text/event-stream\r\n"
        for (k, v) in extra { request += "\(k): \(v)\r\n" }
        request += "\r\n"
        let bytes = Array(request.utf8)
        guard send(fd, bytes, bytes.count, 0) == bytes.count else { throw HarnessError("send failed") }
        try readHead()
    }

    deinit { if fd >= 0 { Glibc.close(fd) } }

    private func fill(timeout: Double) throws -> Bool {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&p, 1, Int32(timeout * 1000)) > 0 else { return false }
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = recv(fd, &chunk, chunk.count, 0)
        if n <= 0 { eof = true; return false }
        buffer += chunk[0..<n]
        return true
    }

    private func readHead() throws {
        let deadline = Date().addingTimeInterval(5)
        while true {
            if let end = find([13, 10, 13, 10]) {
                let head = String(decoding: buffer[0..<end], as: UTF8.self).components(separatedBy: "\r\n")
                buffer.removeFirst(end + 4)
                status = Int(head[0].split(separator: " ").dropFirst().first ?? "") ?? 0
                for line in head.dropFirst() {
                    guard let colon = line.firstIndex(of: ":") else { continue }
                    headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                }
                return
            }
            guard Date() < deadline, try fill(timeout: 1) || !eof else { throw HarnessError("no HTTP answer") }
        }
    }

    private func find(_ needle: [UInt8]) -> Int? {
        guard buffer.count >= needle.count else { return nil }
        for i in 0...(buffer.count - needle.count) where Array(buffer[i..<(i + needle.count)]) == needle { return i }
        return nil
    }

    /// The answer's body when it is not a stream (a refusal).
    func body(timeout: Double = 3) throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        let length = Int(headers["content-length"] ?? "") ?? 0
        while buffer.count < length && Date() < deadline { _ = try fill(timeout: 0.5) }
        return String(decoding: buffer, as: UTF8.self)
    }

    /// The next event (comments are collected in `comments`), or nil at the timeout or the end.
    func next(timeout: Double = 5) throws -> Event? {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let end = find([10, 10]) {
                let block = String(decoding: buffer[0..<end], as: UTF8.self)
                buffer.removeFirst(end + 2)
                var e = Event(type: "message", id: nil, data: "")
                var isEvent = false
                for line in block.split(separator: "\n", omittingEmptySubsequences: false) {
                    if line.hasPrefix(":") { comments.append(String(line.dropFirst()).trimmingCharacters(in: .whitespaces)); continue }
                    guard let colon = line.firstIndex(of: ":") else { continue }
                    var value = line[line.index(after: colon)...]
                    if value.hasPrefix(" ") { value = value.dropFirst() }
                    isEvent = true
                    switch line[..<colon] {
                    case "event": e.type = String(value)
                    case "id": e.id = String(value)
                    case "data": e.data += (e.data.isEmpty ? "" : "\n") + value
                    default: break
                    }
                }
                if isEvent { return e }
                continue
            }
            let left = deadline.timeIntervalSinceNow
            guard left > 0, !eof else { return nil }
            _ = try fill(timeout: min(left, 1))
        }
    }

    /// The next event of `type`, skipping others (presence, say).
    func next(_ type: String, timeout: Double = 5) throws -> Event {
        let deadline = Date().addingTimeInterval(timeout)
        while let e = try next(timeout: max(0.01, deadline.timeIntervalSinceNow)) {
            if e.type == type { return e }
        }
        throw HarnessError("no '\(type)' event within \(timeout) s")
    }

    /// Waits for the daemon to end the stream (EOF), reading what comes.
    func waitForEnd(timeout: Double) throws -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while !eof && Date() < deadline { _ = try fill(timeout: 0.5); buffer.removeAll() }
        return eof
    }
}
