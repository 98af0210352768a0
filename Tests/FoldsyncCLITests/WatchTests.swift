import FoldTestSupport
import Foundation
import Testing

@Suite struct WatchTests {
    /// `watch` prints the snapshot, then one line per patch, and ends with 0 on SIGTERM.
    @Test func printsOneLinePerMessageAndEndsOnSIGTERM() throws {
        let d = try DaemonProcess()
        let out = d.directory.appendingPathComponent("watch.out")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Build.client)
        p.arguments = ["watch", "--url", d.url]
        p.standardOutput = try FileHandle(forWritingTo: out)
        p.standardError = FileHandle.nullDevice
        try p.run()
        func lines() -> [[String: Any]] {
            let text = (try? String(contentsOf: out, encoding: .utf8)) ?? ""
            return text.split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
        }
        #expect(eventually { lines().contains { $0["type"] as? String == "snapshot" } })
        #expect(try foldsync(["toggle", "s0", "--url", d.url]).status == 0)
        #expect(try foldsync(["toggle", "s1", "--url", d.url]).status == 0)
        #expect(eventually { lines().filter { $0["type"] as? String == "patch" }.count == 2 })
        let all = lines()
        #expect(all.first?["type"] as? String == "snapshot")
        #expect(!all.contains { $0["type"] as? String == "hello" })
        #expect(all.allSatisfy { $0["board"] as? String == "default" })
        #expect(all.filter { $0["type"] as? String == "patch" }.map { $0["rev"] as? Int } == [1, 2])
        p.terminate()
        #expect(eventually(timeout: 5) { !p.isRunning })
        #expect(p.terminationStatus == 0)
    }

    /// A reader that goes away (SIGPIPE / EPIPE) ends the watch cleanly.
    @Test func endsCleanlyWhenTheReaderGoes() throws {
        let d = try DaemonProcess()
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/bash")
        // The exit status of the shell is the watch's.
        p.arguments = ["-c", "'\(Build.client)' watch --url \(d.url) | head -n 1 >/dev/null; exit ${PIPESTATUS[0]}"]
        let pipe = Pipe()
        p.standardOutput = pipe
        try p.run()
        // The first line (snapshot) satisfies head; the next message hits a closed pipe.
        usleep(300_000)
        #expect(try foldsync(["toggle", "s0", "--url", d.url]).status == 0)
        #expect(eventually(timeout: 10) { !p.isRunning })
        #expect(p.terminationStatus == 0)
    }

    @Test func watchOfAMissingBoardExitsOne() throws {
        let d = try DaemonProcess()
        let r = try foldsync(["watch", "--board", "nope", "--url", d.url])
        #expect(r.status == 1)
        #expect(r.stderr.hasPrefix("foldsync: not_found"))
    }
}
