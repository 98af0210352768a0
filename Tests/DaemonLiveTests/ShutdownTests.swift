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

    /// Every event loop stops cleanly on SIGTERM: each client gets its 1001
    /// close frame, and the daemon exits 0, not by a signal. With
    /// libev the context is destroyed inside the event library's own loop;
    /// libwebsockets 4.3 then unloaded the library under it (SIGSEGV) unless
    /// it is kept loaded (`EventLibraryPin`), which the start line names.
    @Test(arguments: ["libev", "libuv", "poll"])
    func aStopIsCleanOnEveryEventLoop(eventLoop: String) throws {
        let d = try DaemonProcess(["--event-loop", eventLoop])
        defer { d.shutdown() }
        let a = try d.connect()
        _ = try a.subscribe()
        #expect(try a.answer(Wire.action(.toggle, id: "t", #""section":"s0""#), id: "t").rev == 1)
        if eventLoop == "libev" {
            #expect(d.stderr.contains("kept loaded: libev.so.4, libwebsockets-evlib_ev.so"), "\(d.stderr)")
        }
        d.signal(SIGTERM)
        let code = try a.waitForClose(timeout: 15)
        // On libuv too: the daemon writes its close frame itself (`CorkedWriter.writeable`).
        #expect(code == 1001, "close code \(String(describing: code)) on \(eventLoop)")
        #expect(d.waitForExit(timeout: 15) == 0, "\(d.stderr)")
        #expect(d.stderr.contains("stopped"), "\(d.stderr)")
    }

    /// 200 writes the daemon holds, none yet committed (its store is locked
    /// by another process), when SIGTERM comes: it drains before it says
    /// goodbye, so once the lock goes every one is answered with an ack
    /// before the 1001, w0...w199 at revs 1...200, and every acked write is in
    /// the store after the restart, at the rev its ack named. With `warm`
    /// the board was read into memory first, and the writes wait for their
    /// commit; without, the board is cold (as every board is at the start)
    /// and the writes may still wait behind its read when SIGTERM comes,
    /// not yet applied: the shutdown waits for them all the same.
    @Test(arguments: [true, false])
    func writesSentJustBeforeSIGTERMAreCommittedWhenAcknowledged(warm: Bool) throws {
        let d = try DaemonProcess(["--max-actions-per-second", "100000", "--action-burst", "100000", "--history-per-board", "1000",
                                   "--store-busy-timeout", "30000"])
        defer { d.shutdown() }
        let c = try d.connect()
        let count = 200
        if warm { #expect(try d.http("GET", "/api/boards/default").status == 200) }
        let lock = try SQLiteWriteLock(path: d.dbPath)
        defer { lock.release() }
        var burst: [UInt8] = []
        for i in 0..<count {
            burst += TestSocket.frame(opcode: 0x1, Array(Wire.action(.setTitle, id: "w\(i)", #""section":"s\#(i % 3)","title":"title \#(i)""#).utf8))
        }
        try c.sendRaw(burst)
        // The daemon has read all of them (and can commit none).
        #expect(try eventually(timeout: 15) {
            (metric("foldsync_messages_received_total", in: try d.http("GET", "/metrics").text) ?? 0) >= Double(count)
        }, "the daemon did not read the burst")
        let mark = d.logMark
        d.terminate()
        #expect(d.waitForLog("shutting down", after: mark), "no shutdown began")
        lock.release()
        var acked: [Int: Int] = [:]  // message index → rev
        var others: [String] = []
        while let text = try c.recvText(timeout: 30) {
            let m = try JSONParser.parse(text, maxDepth: 64)
            if m.type == "ack", let id = m["id"]?.stringValue, let i = Int(id.dropFirst()), let rev = m.rev {
                #expect(acked[i] == nil, "w\(i) acked twice")
                acked[i] = rev
            } else if m.type != "presence" {
                others.append(text)
            }
        }
        #expect(c.closeCode == 1001, "close \(c.closeCode.map(String.init) ?? "none")")
        #expect(d.waitForExit(timeout: 15) == 0, "\(d.stderr)")
        let log = d.log(after: mark)
        let pending = Self.pendingWrites(in: log), held = Self.messagesWaitingForARead(in: log) ?? 0
        if warm { #expect(pending == count, "\(log)") } else { #expect(pending.map { $0 + held } == count, "\(log)") }
        // Every write answered with an ack, in order: one connection's writes commit in turn.
        let unanswered = (0..<count).filter { acked[$0] == nil }
        #expect(unanswered.isEmpty, "\(unanswered.count) writes never answered (first w\(unanswered.first ?? -1))")
        #expect(others.isEmpty, "answers other than acks: \(others.prefix(3))")
        let wrong = acked.filter { $0.value != $0.key + 1 }.sorted { $0.key < $1.key }
        #expect(wrong.isEmpty, "acks out of order: \(wrong.prefix(5))")

        try d.restart()
        let stored = try d.http("GET", "/api/boards/default").json()
        #expect(stored.rev == count, "acked up to \(acked.values.max() ?? 0), stored \(stored.rev ?? -1)")
        // Each acked write is the change at the rev its ack named.
        let h = try d.http("GET", "/api/boards/default/history?since=0&limit=\(count)").json()
        var logged: [Int: JSON] = [:]
        for e in h["entries"]?.arrayValue ?? [] { if let rev = e.rev, let action = e["action"] { logged[rev] = action } }
        for (i, rev) in acked.sorted(by: { $0.key < $1.key }) {
            let want = try JSONParser.parse(#"{"type":"setTitle","section":"s\#(i % 3)","title":"title \#(i)"}"#)
            #expect(logged[rev] == want, "w\(i) acked at rev \(rev), the log has \(logged[rev].map { String(decoding: $0.encoded(), as: UTF8.self) } ?? "nothing")")
        }
    }

    /// P in the daemon's "shutting down: N connections, P pending writes".
    static func pendingWrites(in log: String) -> Int? {
        guard let r = log.range(of: "connections, ") else { return nil }
        return Int(log[r.upperBound...].prefix { $0.isNumber })
    }

    /// H in the daemon's "shutting down: ..., P pending writes, H messages waiting for a board read".
    static func messagesWaitingForARead(in log: String) -> Int? {
        guard let r = log.range(of: "pending writes, ") else { return nil }
        return Int(log[r.upperBound...].prefix { $0.isNumber })
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

/// Another process (python3's sqlite3) holding the write lock of a SQLite
/// database (`BEGIN IMMEDIATE`) until `release`: the daemon's commits wait
/// on it (within its busy timeout) while the rest of it runs.
final class SQLiteWriteLock {
    private let process = Process()
    private let input = Pipe()
    private var released = false

    init(path: String) throws {
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", """
            import sqlite3, sys
            c = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=30)
            c.execute("BEGIN IMMEDIATE")
            print("locked", flush=True)
            sys.stdin.read()
            c.execute("ROLLBACK")
            """, path]
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        let line = String(decoding: output.fileHandleForReading.readData(ofLength: 7), as: UTF8.self)
        guard line == "locked\n" else {
            process.terminate()
            throw HarnessError("could not lock \(path): \(line)")
        }
    }

    /// Ends the transaction (EOF on the helper's stdin) and waits for the helper to exit.
    func release() {
        guard !released else { return }
        released = true
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }

    deinit { release() }
}
