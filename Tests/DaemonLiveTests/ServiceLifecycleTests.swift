import Foundation
import FoldTestSupport
import Testing

/// Every thread the real daemon runs belongs to its one service group
/// (started in the order `Daemon.run` writes, stopped in reverse), and a
/// SIGTERM stops them all in time: exit 0, no thread left overdue.
@Suite struct ServiceLifecycleTests {
    /// The names of the process's threads (`comm`, at most 15 bytes).
    static func threadNames(of pid: Int32) throws -> Set<String> {
        var out: Set<String> = []
        for tid in try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task") {
            let comm = try String(contentsOfFile: "/proc/\(pid)/task/\(tid)/comm", encoding: .utf8)
            out.insert(comm.trimmingCharacters(in: .newlines))
        }
        return out
    }

    @Test func theDaemonsThreadsAreItsServicesAndAllStopOnSIGTERM() throws {
        let d = try DaemonProcess(["--log-level", "debug"])
        defer { d.shutdown() }
        #expect(d.waitForLog("threads, in start order"))
        let line = try #require(d.log(after: 0).split(separator: "\n").first { $0.contains("threads, in start order") })
        let listed = try #require(line.split(separator: ": ").last).split(separator: ", ").map(String.init)
        #expect(listed == ["foldsync-reaper", "foldsync-sync", "foldsync-committer", "foldsync-reader", "foldsync-loader",
                           "foldsync-timers", "foldsync-lws", "signals"], "the written order: \(listed)")

        // A commit and a read, so every thread has run.
        #expect(try d.http("POST", "/api/boards/default/actions", body: #"{"type":"toggle","section":"s0"}"#).status == 200)
        #expect(try d.http("GET", "/api/boards/default/history").status == 200)
        let running = try Self.threadNames(of: d.pid).filter { $0.hasPrefix("foldsync-") }
        let services = Set(listed.filter { $0.hasPrefix("foldsync-") }.map { String($0.prefix(15)) })
        // The store's own thread lives from its open to its close (backup and
        // migrate-store open stores without a daemon).
        let store: Set = ["foldsync-checkp"]
        #expect(running.subtracting(store) == services, "threads named: \(running.sorted()); services: \(services.sorted())")

        let mark = d.logMark
        d.signal(SIGTERM)
        #expect(d.waitForExit(timeout: 20) == 0)
        let tail = d.log(after: mark)
        #expect(tail.contains("stopped"), "\(tail)")
        #expect(!tail.contains("still running at their stop deadline"), "\(tail)")
    }
}
