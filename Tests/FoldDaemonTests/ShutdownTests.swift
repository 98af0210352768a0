import FoldCore
import FoldTestSupport
import Foundation
import Glibc
import Testing

/// SIGTERM/SIGINT: every client gets 1001 with a reason, pending writes are
/// committed, the exit status is 0, and the time is bounded even when a
/// client never reads.
@Suite struct ShutdownTests {
    @Test(arguments: [SIGTERM, SIGINT])
    func everyClientGetsGoingAwayAndTheyResumeOnTheNextDaemon(sig: Int32) throws {
        let d = try DaemonProcess()
        defer { d.shutdown() }
        let a = try d.connect(), b = try d.connect()
        let snap = try a.subscribe()
        try b.subscribe()
        let epoch = try #require(snap["epoch"]?.stringValue)
        #expect(try a.answer(Wire.action(.toggle, id: "t", #""section":"s0""#), id: "t").rev == 1)
        #expect(try b.waitFor(type: "patch").rev == 1)

        d.signal(sig)
        for c in [a, b] {
            #expect(try c.waitForClose(timeout: 15) == 1001)
            #expect(c.closeReason == "server shutdown")
        }
        #expect(d.waitForExit(timeout: 15) == 0, "\(d.stderr)")

        // The next daemon on the same store: a change, then resume with `since`.
        try d.restart()
        _ = try d.http("POST", "/api/boards/default/actions", body: #"{"type":"toggle","section":"s1"}"#)
        let again = try d.connect()
        try again.send(Wire.subscribe(since: (epoch, 1)))
        let m = try again.recvSkippingPresence()
        #expect(m.type == "patch" && m.rev == 2 && m["epoch"]?.stringValue == epoch, "\(m)")
    }

    @Test func writesSentJustBeforeSIGTERMAreCommittedWhenAcknowledged() throws {
        let d = try DaemonProcess(["--max-actions-per-second", "100000", "--action-burst", "100000"])
        defer { d.shutdown() }
        let c = try d.connect()
        var burst: [UInt8] = []
        for i in 0..<200 {
            burst += TestSocket.frame(opcode: 0x1, Array(Wire.action(.setTitle, id: "w\(i)", #""section":"s\#(i % 3)","title":"title \#(i)""#).utf8))
        }
        try c.sendRaw(burst)
        d.terminate()
        var acked: [Int: Int] = [:]  // message index → rev
        while let text = try c.recvText(timeout: 15) {
            let m = try JSONParser.parse(text, maxDepth: 64)
            if m.type == "ack", let id = m["id"]?.stringValue, let i = Int(id.dropFirst()), let rev = m.rev { acked[i] = rev }
        }
        #expect(c.closeCode == 1001, "close \(c.closeCode.map(String.init) ?? "none")")
        #expect(d.waitForExit(timeout: 15) == 0, "\(d.stderr)")

        try d.restart()
        let stored = try d.http("GET", "/api/boards/default").json()
        let maxAcked = acked.values.max() ?? 0
        #expect((stored.rev ?? -1) >= maxAcked, "acked up to \(maxAcked), stored \(stored.rev ?? -1) (\(acked.count) acks)")
        // The last acknowledged title of each section is there (or a later one).
        for s in 0..<3 {
            guard let last = acked.keys.filter({ $0 % 3 == s }).max() else { continue }
            let title = stored["state"]?.section("s\(s)")?["title"]?.stringValue ?? ""
            let n = Int(title.split(separator: " ").last ?? "") ?? -1
            #expect(n >= last, "s\(s): acked 'title \(last)', stored '\(title)'")
        }
    }

    @Test func aClientThatNeverReadsDoesNotHoldTheShutdownPastItsTimeout() throws {
        let d = try DaemonProcess(["--shutdown-timeout", "2", "--max-queue-frames", "1000000", "--max-queue-bytes", "1073741824",
                                   "--slow-client-timeout", "3600", "--max-actions-per-second", "100000", "--action-burst", "100000"])
        defer { d.shutdown() }
        let slow = try d.connect(receiveBuffer: 4096)
        try slow.send(Wire.subscribe())
        let writer = try d.connect()
        // ~6 MB of patches: more than the kernel buffers between the daemon and the laggard hold.
        let items = (0..<20).map { "\"\($0)\(String(repeating: "y", count: 3000))\"" }.joined(separator: ",")
        for start in stride(from: 0, to: 100, by: 10) {
            for n in start..<(start + 10) {
                try writer.send(Wire.action(.setItems, id: "f\(n)", #""section":"s\#(n % 3)","items":["\#(n)",\#(items)]"#))
            }
            for _ in 0..<10 { try #require(try writer.recvSkippingPresence(timeout: 15).type == "ack") }
        }
        let m = try d.http("GET", "/metrics").text
        #expect(metric("foldsync_connections", in: m) == 2, "the laggard is still connected")

        let started = Date()
        let mark = d.logMark
        d.terminate()
        #expect(try writer.waitForClose(timeout: 10) == 1001)
        let status = d.waitForExit(timeout: 2 + 10)
        #expect(status == 0, "exit status \(status.map(String.init) ?? "none: still running after \(Date().timeIntervalSince(started)) s")")
        #expect(d.log(after: mark).contains("shutting down: 2 connections"), "\(d.log(after: mark))")
        // The premise: the laggard really was stuck. Reading now, it finds the
        // backlog the kernel held, then the end, and never the close frame the
        // daemon could not write to it.
        _ = try? slow.waitForClose(timeout: 30)
        #expect(slow.eof, "the laggard's connection ended")
        #expect(slow.closeCode != 1001, "the laggard received its 1001: it was not holding the shutdown")
    }
}
