import FoldCore
import FoldTestSupport
import Foundation
import Glibc
import Testing

/// Every connection the daemon ends gets a close frame with a code and a
/// reason while its socket can take one, and every end is counted once, by
/// reason, in `foldsync_connections_closed_total{reason}`: the reasons add
/// up to `connections_opened_total - connections`.
@Suite struct CloseReasonTests {
    /// The books at one reading: closes by reason, and whether they add up
    /// to the connections opened minus those open, with every reason listed.
    struct Books {
        var closes: [String: Int] = [:]
        var opened = -1, open = -1
        var balanced: Bool {
            Set(closes.keys) == Set(CloseCause.allCases.map(\.rawValue)) && closes.values.reduce(0, +) == opened - open
        }
    }

    static func books(_ d: DaemonProcess, headers: [(String, String)] = []) throws -> Books {
        let text = try d.http("GET", "/metrics", headers: headers).text
        var b = Books()
        let prefix = #"foldsync_connections_closed_total{reason=""#
        for line in text.split(separator: "\n") where line.hasPrefix(prefix) {
            let rest = line.dropFirst(prefix.count)
            guard let q = rest.range(of: "\"} "), let n = Int(rest[q.upperBound...]) else { continue }
            b.closes[String(rest[..<q.lowerBound])] = n
        }
        b.opened = Int(metric("foldsync_connections_opened_total", in: text) ?? -1)
        b.open = Int(metric("foldsync_connections", in: text) ?? -1)
        return b
    }

    /// Waits until `reason` has been counted `count` times (the count moves
    /// when lws finishes the close, a moment after the client saw the frame)
    /// and no other reason at all; the books balance.
    static func expectCount(_ d: DaemonProcess, _ reason: CloseCause, _ count: Int, headers: [(String, String)] = [],
                            sourceLocation: SourceLocation = #_sourceLocation) throws {
        var last = Books()
        let moved = try eventually(timeout: 10) {
            last = try books(d, headers: headers)
            return last.closes[reason.rawValue] == count
        }
        #expect(moved, "\(reason.rawValue) should be \(count): \(last.closes)", sourceLocation: sourceLocation)
        #expect(last.balanced, "closes \(last.closes) must add up to opened \(last.opened) - open \(last.open)", sourceLocation: sourceLocation)
        let others = last.closes.filter { $0.key != reason.rawValue && $0.value != 0 }
        #expect(others.isEmpty, "no other reason counted: \(others)", sourceLocation: sourceLocation)
    }

    @Test func aPeerThatStopsAnsweringPingsGets1008AndIsCounted() throws {
        let d = try DaemonProcess(["--ping-interval", "1"])
        defer { d.shutdown() }
        let silent = try d.connect()
        _ = try silent.subscribe()
        let lively = try d.connect()
        _ = try lively.subscribe()
        // `lively` reads (and so answers PINGs) while `silent` reads nothing.
        let until = Date().addingTimeInterval(5)
        while Date() < until { _ = try lively.recvText(timeout: 0.2) }
        #expect(try silent.waitForClose(timeout: 5) == 1008)
        #expect(silent.closeReason.contains("ping"), "reason: \(silent.closeReason)")
        try Self.expectCount(d, .pingTimeout, 1)
        #expect(try lively.answer(Wire.action(.toggle, id: "p", #""section":"s1""#), id: "p").type == "ack")
    }

    @Test func aPeerThatAnswersPingsStaysWithoutSendingAnything() throws {
        let d = try DaemonProcess(["--ping-interval", "1"])
        defer { d.shutdown() }
        let quiet = try d.connect()
        _ = try quiet.subscribe()
        // Six seconds of silence from the client, answering only PINGs: three hang-up periods.
        let until = Date().addingTimeInterval(6)
        while Date() < until { _ = try quiet.recvText(timeout: 0.2) }
        #expect(quiet.closeCode == nil && !quiet.eof, "closed: \(quiet.closeCode.map(String.init) ?? "no frame")")
        try Self.expectCount(d, .pingTimeout, 0)
    }

    @Test func theAuthTimeoutSends1008AndIsCounted() throws {
        let d = try DaemonProcess(Tokens.flags + ["--auth-timeout", "1"])
        defer { d.shutdown() }
        let idle = try d.connect()
        #expect(try idle.waitForClose(timeout: 10) == 1008)
        #expect(idle.closeReason.contains("token"), "reason: \(idle.closeReason)")
        try Self.expectCount(d, .authTimeout, 1, headers: Tokens.bearer(Tokens.reader))
    }

    @Test func aMessageOverTheLimitSends1009AndIsCounted() throws {
        let d = try DaemonProcess(["--max-message-bytes", "4096"])
        defer { d.shutdown() }
        let c = try d.connect()
        try c.send(String(repeating: "x", count: 5000))
        #expect(try c.waitForClose() == 1009)
        #expect(c.closeReason.contains("4096"), "reason: \(c.closeReason)")
        try Self.expectCount(d, .messageTooLarge, 1)
        let metrics = try d.http("GET", "/metrics").text
        #expect(metric(#"foldsync_transport_closes_total{reason="message-too-large"}"#, in: metrics) == 1, "\(metrics)")
    }

    @Test func aBinaryFrameSends1003AndIsCounted() throws {
        let d = try DaemonProcess([])
        defer { d.shutdown() }
        let c = try d.connect()
        try c.sendRaw(TestSocket.frame(opcode: 0x2, [1, 2, 3]))
        #expect(try c.waitForClose() == 1003)
        #expect(c.closeReason.contains("binary"), "reason: \(c.closeReason)")
        try Self.expectCount(d, .binaryFrame, 1)
    }

    @Test func textThatIsNotUTF8IsClosedByLWSWith1007AndCountedAsTransport() throws {
        let d = try DaemonProcess([])
        defer { d.shutdown() }
        let c = try d.connect()
        try c.sendText(bytes: [0x7B, 0xFF, 0xFE, 0x7D])
        #expect(try c.waitForClose() == 1007)
        try Self.expectCount(d, .transport, 1)
    }

    @Test func aClientThatSaysGoodbyeIsCountedAsPeerClosed() throws {
        let d = try DaemonProcess([])
        defer { d.shutdown() }
        let c = try d.connect()
        _ = try c.subscribe()
        try c.sendRaw(TestSocket.frame(opcode: 0x8, [0x03, 0xE8] + Array("bye".utf8)))
        #expect(try c.waitForClose() == 1000, "lws echoes the close")
        try Self.expectCount(d, .peerClosed, 1)
    }

    @Test func aClientThatVanishesIsCountedAsPeerGone() throws {
        let d = try DaemonProcess([])
        defer { d.shutdown() }
        let c = try d.connect()
        _ = try c.subscribe()
        // Gone without a close frame: the stream ends. Not close(): the
        // socket's deinit closes its descriptor, and a second close in this
        // many-threaded runner would close another test's socket that reused the number.
        shutdown(c.fd, Int32(SHUT_RDWR))
        try Self.expectCount(d, .peerGone, 1)
    }

    @Test func shutdownSends1001AndTheStopReportsTheCount() throws {
        let d = try DaemonProcess([])
        defer { d.shutdown() }
        let a = try d.connect(), b = try d.connect()
        _ = try a.subscribe()
        _ = try b.subscribe()
        let mark = d.logMark
        d.terminate()
        #expect(try a.waitForClose(timeout: 10) == 1001)
        #expect(a.closeReason == "server shutdown")
        #expect(try b.waitForClose(timeout: 10) == 1001)
        #expect(d.waitForExit(timeout: 10) == 0)
        // /metrics is gone with the process: the last log line carries the counts.
        let log = d.log(after: mark)
        #expect(log.contains("connections closed: shutdown 2") && !log.contains("peer-gone"), "\(log)")
    }

    /// The daemon's own failure: at the shutdown timeout its writes are still
    /// unfinished (another process holds the store's write lock), so the
    /// clients hear 1011 with the reason rather than a dropped socket.
    @Test func aShutdownThatCannotFinishItsWritesSends1011() throws {
        let d = try DaemonProcess(["--shutdown-timeout", "1", "--store-busy-timeout", "30000"])
        defer { d.shutdown() }
        let c = try d.connect()
        _ = try c.subscribe()
        let lock = try SQLiteWriteLock(path: d.dbPath)
        defer { lock.release() }
        try c.send(Wire.action(.toggle, id: "t", #""section":"s1""#))
        #expect(try eventually(timeout: 10) {
            (metric("foldsync_messages_received_total", in: try d.http("GET", "/metrics").text) ?? 0) >= 2
        }, "the daemon did not read the write")
        d.terminate()
        #expect(try c.waitForClose(timeout: 10) == 1011)
        #expect(c.closeReason.contains("writes unfinished"), "reason: \(c.closeReason)")
        lock.release()
        _ = d.waitForExit(timeout: 40)
    }
}
