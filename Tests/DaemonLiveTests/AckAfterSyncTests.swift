import Foundation
import FoldTestSupport
import Testing

/// The order that makes an ack true after a power cut, read off the real
/// daemon's system calls (strace attached to every thread): between the
/// last write to the WAL and the send of each ack, an `fdatasync` of the
/// WAL has returned. The daemon commits without syncing and syncs the WAL on
/// a thread of its own (docs/OPERATIONS.md, "When a change is durable"), so
/// this is what keeps an acknowledged change on disk; kill -9
/// (`ResumeTests`) cannot tell, as the page cache survives a process.
@Suite(.serialized) struct AckAfterSyncTests {
    /// The descriptors the daemon holds on its WAL (SQLite's and the sync thread's).
    static func walDescriptors(of pid: Int32) throws -> Set<String> {
        var out: Set<String> = []
        for fd in try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd") {
            if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(fd)"), target.hasSuffix(".db-wal") {
                out.insert(fd)
            }
        }
        return out
    }

    @Test func everyAckFollowsAnFdatasyncOfTheWALAfterItsLastWrite() throws {
        let strace = "/usr/bin/strace"
        try #require(FileManager.default.isExecutableFile(atPath: strace), "strace is missing: apt-get install strace (.ci/run installs it)")
        let d = try DaemonProcess()
        defer { d.shutdown() }
        let c = try d.connect()
        #expect(try c.answer(Wire.action(.toggle, id: "warm", #""section":"s0""#), id: "warm").type == "ack")
        let wal = try Self.walDescriptors(of: d.pid)
        try #require(wal.count >= 2, "SQLite's descriptor and the sync thread's: \(wal)")

        let trace = d.directory.appendingPathComponent("strace.txt").path
        let p = Process()
        p.executableURL = URL(fileURLWithPath: strace)
        // -f: every thread; -ttt -T: entry time and duration; only what the order needs.
        p.arguments = ["-f", "-ttt", "-T", "-s", "16", "-e", "trace=pwrite64,fdatasync,sendto", "-o", trace, "-p", "\(d.pid)"]
        p.standardError = FileHandle.nullDevice
        try p.run()
        defer { if p.isRunning { p.terminate() } }
        // strace says nothing when it is attached: wait until a traced call shows up.
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            _ = try c.answer(Wire.action(.toggle, id: "probe", #""section":"s1""#), id: "probe")
            if let t = try? String(contentsOfFile: trace, encoding: .utf8), t.contains("sendto(") { break }
            Thread.sleep(forTimeInterval: 0.1)
        }
        var acked = 0
        for i in 0..<30 {
            let a = try c.answer(Wire.action(.setTitle, id: "t\(i)", #""section":"s2","title":"t\#(i)""#), id: "t\(i)")
            if a.type == "ack" { acked += 1 }
        }
        #expect(acked == 30)
        // SIGTERM detaches strace (SIGINT may be ignored, as the test runner's children inherit that).
        p.terminate()
        let stopBy = Date().addingTimeInterval(2)
        while p.isRunning && Date() < stopBy { Thread.sleep(forTimeInterval: 0.05) }
        if p.isRunning { kill(p.processIdentifier, SIGKILL) }
        try #require(!p.isRunning || { p.waitUntilExit(); return true }(), "strace did not stop")

        let events = try Self.parse(String(contentsOfFile: trace, encoding: .utf8), wal: wal)
        // One action at a time, from one client: the last WAL write before an ack is its batch's.
        var checked = 0
        for e in events where e.kind == .ack {
            guard let written = events.filter({ $0.kind == .walWrite && $0.end <= e.start }).map(\.end).max() else { continue }
            let synced = events.contains { $0.kind == .walSync && $0.start >= written && $0.end <= e.start }
            #expect(synced, "an ack at \(e.start) was sent with no fdatasync of the WAL since its write at \(written)")
            checked += 1
        }
        #expect(checked >= 30, "acks seen after a WAL write: \(checked)")
    }

    enum Kind { case walWrite, walSync, ack }
    struct Event { let kind: Kind; let start: Double; let end: Double }

    /// One event per traced call that matters, in order of its end. strace
    /// splits a call other threads interrupt into "<unfinished ...>" and
    /// "<... resumed>" lines; the resumed line carries its duration.
    static func parse(_ text: String, wal: Set<String>) throws -> [Event] {
        var open: [String: (call: String, start: Double, fd: String, ack: Bool)] = [:]
        var out: [Event] = []
        func finish(_ call: String, start: Double, fd: String, ack: Bool, duration: Double) {
            let end = start + duration
            switch call {
            case "pwrite64" where wal.contains(fd): out.append(Event(kind: .walWrite, start: start, end: end))
            case "fdatasync" where wal.contains(fd): out.append(Event(kind: .walSync, start: start, end: end))
            case "sendto" where ack: out.append(Event(kind: .ack, start: start, end: end))
            default: break
            }
        }
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 2)
            guard parts.count == 3, let start = Double(parts[1]) else { continue }
            let tid = String(parts[0]), rest = String(parts[2])
            let duration = rest.range(of: "<", options: .backwards).flatMap { Double(rest[$0.upperBound...].dropLast()) } ?? 0
            if rest.hasPrefix("<... ") {
                guard let o = open.removeValue(forKey: tid) else { continue }
                finish(o.call, start: o.start, fd: o.fd, ack: o.ack, duration: max(duration, start - o.start))
                continue
            }
            guard let paren = rest.firstIndex(of: "(") else { continue }
            let call = String(rest[..<paren])
            let args = rest[rest.index(after: paren)...]
            let fd = String(args.prefix { $0.isNumber })
            let ack = call == "sendto" && args.contains(#"{\"type\":\"ack\""#)
            if rest.hasSuffix("<unfinished ...>") {
                open[tid] = (call, start, fd, ack)
            } else {
                finish(call, start: start, fd: fd, ack: ack, duration: duration)
            }
        }
        return out.sorted { $0.end < $1.end }
    }
}
