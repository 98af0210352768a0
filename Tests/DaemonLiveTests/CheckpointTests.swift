import FoldTestSupport
import Foundation
import Testing

/// WAL checkpoints run on their own connection and thread, not inside the
/// commit that crosses SQLite's threshold: the WAL stays bounded and the
/// database file receives the changes while the daemon writes.
@Suite struct CheckpointTests {
    @Test func theWALStaysBoundedAndTheDatabaseFillsUnderAStreamOfCommits() throws {
        let d = try DaemonProcess(["--max-actions-per-second", "100000", "--action-burst", "100000"])
        defer { d.shutdown() }
        let c = try d.connect()
        _ = try c.subscribe()
        let title = String(repeating: "w", count: 1_000)
        // 40 bursts of 100 changes of about 1 KB: about 40 MB of WAL frames
        // without checkpoints (each commit rewrites the board's row).
        for round in 0..<40 {
            var burst: [UInt8] = []
            for i in 0..<100 {
                burst += TestSocket.frame(opcode: 0x1, Array(Wire.action(.setTitle, id: "r\(round)-\(i)", #""section":"s\#(i % 3)","title":"\#(title)\#(i)""#).utf8))
            }
            try c.sendRaw(burst)
            var acks = 0
            while acks < 100 {
                let m = try c.recvJSON(timeout: 30)
                try #require(m.type != "error", "\(m)")
                if m.type == "ack" { acks += 1 }
            }
        }
        let size = { (suffix: String) -> Int in
            ((try? FileManager.default.attributesOfItem(atPath: d.dbPath + suffix)[.size]) as? Int) ?? 0
        }
        // Checkpoints run in the background: give the last one a moment.
        #expect(eventually(timeout: 10) { size("") > 64 * 1024 }, "the database file never received a checkpoint")
        #expect(size("-wal") < 16 * 1024 * 1024, "WAL grew to \(size("-wal")) bytes")
    }
}
