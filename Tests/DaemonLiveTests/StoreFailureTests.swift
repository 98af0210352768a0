import FoldCore
import FoldTestSupport
import Foundation
import Glibc
import Testing

/// A store that refuses writes (another process holds the SQLite write lock):
/// actions fail with `internal`, reads and subscriptions keep working, and
/// writes come back once the lock is released.
@Suite struct StoreFailureTests {
    /// `python3` holding `BEGIN EXCLUSIVE` on the database until killed.
    final class LockHolder {
        let process = Process()
        let output = Pipe()

        init(db: String) throws {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3", "-c", """
                import sqlite3, sys, time
                c = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=10)
                c.execute("BEGIN EXCLUSIVE")
                print("locked", flush=True)
                time.sleep(60)
                """, db]
            process.standardOutput = output
            try process.run()
            // Wait (bounded by the child's own 10 s timeout) for the lock to be taken.
            let line = output.fileHandleForReading.availableData
            guard String(decoding: line, as: UTF8.self).contains("locked") else {
                release()
                throw HarnessError("python3 did not take the lock")
            }
        }

        func release() {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }

        deinit { release() }
    }

    @Test func writesFailWithInternalWhileLockedAndRecoverAfter() throws {
        let d = try DaemonProcess(["--store-busy-timeout", "200"])
        defer { d.shutdown() }
        let watcher = try d.connect(), actor = try d.connect()
        let snap = try watcher.subscribe()
        let rev = try #require(snap.rev)

        let lock = try LockHolder(db: d.dbPath)
        defer { lock.release() }
        let refused = try actor.perform(Wire.action(.toggle, id: "locked", #""section":"s0""#), id: "locked")
        #expect(refused.map(\.type) == ["error"])
        #expect(refused.last?.code == "internal")
        #expect(refused.last?["id"]?.stringValue == "locked")

        // Reads and subscriptions still work; health says the store is not writable.
        let got = try d.http("GET", "/api/boards/default")
        #expect(got.status == 200)
        #expect(try got.json().rev == rev)
        #expect(try got.json()["state"] == snap["state"])
        let late = try d.connect()
        #expect(try late.subscribe().rev == rev)
        let health = try d.http("GET", "/healthz")
        #expect(health.status == 200)
        #expect(try health.json()["writable"] == .bool(false))
        let http = try d.http("POST", "/api/boards/default/actions", body: #"{"type":"toggle","section":"s1"}"#)
        #expect(http.status == 500)
        #expect(try http.json().code == "internal")

        lock.release()
        var answer = JSON.null
        let recovered = try eventually(timeout: 5) {
            answer = try actor.answer(Wire.action(.toggle, id: "retry", #""section":"s2""#), id: "retry")
            return answer.type == "ack"
        }
        #expect(recovered, "writes succeed again within 5 s of the lock's release: \(answer)")
        #expect(answer.rev == rev + 1, "the refused changes left no trace")
        let patch = try watcher.waitFor(type: "patch")
        #expect(patch.rev == rev + 1)
        let after = try JSONPatch.apply(try #require(patch["ops"]), to: try #require(snap["state"]))
        #expect(try d.http("GET", "/api/boards/default").json()["state"] == after)
        #expect(try d.http("GET", "/healthz").json()["writable"] == .bool(true))
    }
}
