import FoldTestSupport
import Foundation
import Testing

/// Log lines: a UTC timestamp on a terminal or in a file; under systemd
/// (`$JOURNAL_STREAM`) the syslog priority instead, since the journal stamps time.
@Suite struct LogFormatTests {
    @Test func plainLinesCarryATimestamp() throws {
        let d = try DaemonProcess()
        defer { d.shutdown() }
        let line = try #require(d.stderr.split(separator: "\n").first { $0.contains("listening on") })
        // 2026-11-29T16:18:12.547Z info [foldsyncd] ... listening on ...
        let stamp = line.split(separator: " ").first.map(String.init) ?? ""
        #expect(stamp.count == 24 && stamp.hasSuffix("Z") && stamp.contains("T"), "\(line)")
        #expect(line.split(separator: " ").dropFirst().first == "info")
    }

    @Test func journalLinesCarryTheSyslogPriority() throws {
        let d = try DaemonProcess(["--log-level", "debug"], environment: ["JOURNAL_STREAM": "8:12345"])
        defer { d.shutdown() }
        let c = try d.connect()
        try c.send(#"{"type":"subscribe","board":"nope"}"#)
        _ = try c.waitFor(type: "error")
        try c.sendClose()
        // The reader thread collects stderr as it comes: wait for the debug line.
        #expect(d.waitForLog("<7>debug"), "a debug line under the journal starts with <7>: \(d.stderr)")
        let lines = d.stderr.split(separator: "\n")
        let listening = try #require(lines.first { $0.contains("listening on") })
        #expect(listening.hasPrefix("<6>"), "\(listening)")
        #expect(!listening.contains("Z info"), "no timestamp under the journal")
    }
}
