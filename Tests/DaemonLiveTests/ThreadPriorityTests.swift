import Foundation
import FoldTestSupport
import Testing

/// Work that may wait yields the core to what may not: history reads run at
/// nice 5 and the freeing of committed batches at nice 19, while the event
/// loop, the committer and the WAL's sync keep the daemon's own (0). Read off
/// /proc for the real daemon's threads, by name.
@Suite struct ThreadPriorityTests {
    /// Each thread's nice value, by its name (`comm`).
    static func niceByThread(of pid: Int32) throws -> [String: Int] {
        var out: [String: Int] = [:]
        for tid in try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task") {
            let stat = try String(contentsOfFile: "/proc/\(pid)/task/\(tid)/stat", encoding: .utf8)
            guard let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")") else { continue }
            let name = String(stat[stat.index(after: open)..<close])
            // After "pid (comm) ": field 3 (state) is index 0, field 19 (nice) index 16.
            let fields = stat[stat.index(close, offsetBy: 2)...].split(separator: " ")
            if fields.count > 16, let nice = Int(fields[16]) { out[name] = nice }
        }
        return out
    }

    @Test func historyReadsAndFreeingYieldToCommitsAndTheLoop() throws {
        let d = try DaemonProcess([])
        defer { d.shutdown() }
        // A read and a commit, so every worker has run at least once.
        #expect(try d.http("POST", "/api/boards/default/actions", body: #"{"type":"toggle","section":"s0"}"#).status == 200)
        #expect(try d.http("GET", "/api/boards/default/history").status == 200)
        let nice = try Self.niceByThread(of: d.pid)
        #expect(nice["foldsync-reader"] == 5, "\(nice)")
        #expect(nice["foldsync-reaper"] == 19, "\(nice)")
        #expect(nice["foldsync-commit"] == 0, "\(nice)")
        #expect(nice["foldsync-sync"] == 0, "\(nice)")
        #expect(nice.values.filter { $0 == 0 }.count >= 2, "the loop and the committer at the daemon's own: \(nice)")
    }
}
