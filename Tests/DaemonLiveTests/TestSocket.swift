import FoldTestSupport
import Foundation
import Glibc

/// A small raw-socket WebSocket client (RFC 6455), enough to test the daemon
/// byte by byte: masked frames, fragmentation, binary and invalid frames,
/// close codes. Blocking socket; every wait is bounded with `poll`.
final class TestSocket {
    let fd: Int32
    /// The subprotocol the daemon answered with, if any.
    private(set) var negotiated: String?
    /// Bytes read but not yet parsed into frames.
    var inbound: [UInt8] = []
    /// Text messages received and not yet returned (a batch frame holds several).
    var pending: [String] = []
    /// Fragments of a message being reassembled.
    var fragments: [UInt8] = []
    /// Text frames received, and how many of them held more than one message.
    var textFrames = 0
    var batchFrames = 0
    /// The close frame received, if any.
    var closeCode: UInt16?
    var closeReason = ""
    /// The peer closed the TCP connection (or it broke).
    var eof = false
    /// The payloads of the PONG frames received, in order.
    var pongs: [[UInt8]] = []

    static let defaultTimeout = 5.0

    /// Connects to 127.0.0.1:`port` and upgrades at `/ws`. `receiveBuffer`
    /// (SO_RCVBUF) is set before connecting, so the TCP window starts small.
    /// `path`, `host` (default `127.0.0.1`) and `headers` shape the upgrade request.
    init(port: Int, protocols: [String] = [], receiveBuffer: Int? = nil,
         path: String = "/ws", host: String? = nil, headers: [(String, String)] = []) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw HarnessError("socket: errno \(errno)") }
        if var size = receiveBuffer.map(Int32.init) {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var sendTimeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &sendTimeout, socklen_t(MemoryLayout<timeval>.size))
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(port).bigEndian)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        // Every stored property is set by now, so a throw runs deinit, which
        // closes the descriptor: closing it here too would close whatever
        // another test's thread opened with that number in between.
        guard rc == 0 else { throw HarnessError("connect to port \(port): errno \(errno)") }
        try handshake(protocols: protocols, path: path, host: host ?? "127.0.0.1", headers: headers)
    }

    deinit { if fd >= 0 { Glibc.close(fd) } }

    /// Connects and upgrades, expecting a refusal: its HTTP status (throws if the upgrade succeeded).
    static func refusal(port: Int, protocols: [String] = [], host: String? = nil, headers: [(String, String)] = []) throws -> Int {
        do {
            _ = try TestSocket(port: port, protocols: protocols, host: host, headers: headers)
        } catch let r as UpgradeRefused {
            return r.status
        }
        throw HarnessError("the upgrade was accepted")
    }

    private func handshake(protocols: [String], path: String, host: String, headers: [(String, String)]) throws {
        let key = Data((0..<16).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
        var request = "GET \(path) HTTP/1.1\r\nHost: \(host)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        request += "Sec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: 13\r\n"
        if !protocols.isEmpty { request += "Sec-WebSocket-Protocol: \(protocols.joined(separator: ", "))\r\n" }
        for (name, value) in headers { request += "\(name): \(value)\r\n" }
        request += "\r\n"
        try sendRaw(Array(request.utf8))
        let end: [UInt8] = Array("\r\n\r\n".utf8)
        let deadline = Date().addingTimeInterval(Self.defaultTimeout)
        while true {
            if let r = inbound.firstRange(of: end) {
                let head = String(decoding: inbound[..<r.lowerBound], as: UTF8.self)
                inbound.removeSubrange(..<r.upperBound)
                let lines = head.components(separatedBy: "\r\n")
                guard lines.first?.hasPrefix("HTTP/1.1 101") == true else {
                    let status = lines.first.flatMap { $0.split(separator: " ").dropFirst().first }.flatMap { Int($0) } ?? 0
                    throw UpgradeRefused(status: status, statusLine: lines.first ?? "")
                }
                for line in lines.dropFirst() {
                    let parts = line.split(separator: ":", maxSplits: 1)
                    if parts.count == 2, parts[0].lowercased() == "sec-websocket-protocol" {
                        negotiated = parts[1].trimmingCharacters(in: .whitespaces)
                    }
                }
                return
            }
            guard try fill(until: deadline) else { throw HarnessError("no upgrade answer") }
        }
    }

    // MARK: sending

    /// Writes all of `bytes` to the socket as they are.
    func sendRaw(_ bytes: [UInt8]) throws {
        var off = 0
        while off < bytes.count {
            let n = bytes[off...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw HarnessError("send: errno \(errno)") }
            off += n
        }
    }

    /// One masked frame.
    static func frame(opcode: UInt8, _ payload: [UInt8], fin: Bool = true) -> [UInt8] {
        var out: [UInt8] = [(fin ? 0x80 : 0) | opcode]
        let n = payload.count
        if n < 126 {
            out.append(0x80 | UInt8(n))
        } else if n < 65536 {
            out += [0x80 | 126, UInt8(n >> 8), UInt8(n & 0xFF)]
        } else {
            out.append(0x80 | 127)
            for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8((n >> shift) & 0xFF)) }
        }
        let mask = (0..<4).map { _ in UInt8.random(in: 0...255) }
        out += mask
        out.reserveCapacity(out.count + n)
        for (i, b) in payload.enumerated() { out.append(b ^ mask[i & 3]) }
        return out
    }

    /// A text message in one frame.
    func send(_ text: String) throws { try sendRaw(Self.frame(opcode: 0x1, Array(text.utf8))) }

    /// A text message whose payload bytes are given (for invalid UTF-8).
    func sendText(bytes: [UInt8]) throws { try sendRaw(Self.frame(opcode: 0x1, bytes)) }

    /// One text message split over `pieces` frames (text, then continuations).
    func sendFragmented(_ text: String, pieces: Int) throws {
        let bytes = Array(text.utf8)
        let size = (bytes.count + pieces - 1) / pieces
        var out: [UInt8] = []
        for i in 0..<pieces {
            let chunk = Array(bytes[min(i * size, bytes.count)..<min((i + 1) * size, bytes.count)])
            out += Self.frame(opcode: i == 0 ? 0x1 : 0x0, chunk, fin: i == pieces - 1)
        }
        try sendRaw(out)
    }

    func sendBinary(_ bytes: [UInt8]) throws { try sendRaw(Self.frame(opcode: 0x2, bytes)) }

    func sendClose(code: UInt16 = 1000) throws {
        try sendRaw(Self.frame(opcode: 0x8, [UInt8(code >> 8), UInt8(code & 0xFF)]))
    }

    /// Reads more bytes into `inbound`; false on timeout, EOF or error.
    func fill(until deadline: Date) throws -> Bool {
        guard !eof else { return false }
        let ms = Int32(max(0, deadline.timeIntervalSinceNow * 1000))
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let ready = poll(&p, 1, ms)
        if ready < 0 && errno == EINTR { return true }
        guard ready > 0 else { return false }
        var buffer = [UInt8](repeating: 0, count: 65536)
        let n = recv(fd, &buffer, buffer.count, 0)
        if n < 0 && errno == EINTR { return true }
        guard n > 0 else {
            eof = true
            return false
        }
        inbound += buffer[0..<n]
        return true
    }
}

/// The daemon answered the upgrade with something other than 101.
struct UpgradeRefused: Error, CustomStringConvertible {
    let status: Int
    let statusLine: String
    var description: String { "upgrade refused: \(statusLine)" }
}
