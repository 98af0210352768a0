import FoldTestSupport
import Foundation
import PostgresTestSupport
import Testing

/// The terminal client with several `--url`s (two daemons on one
/// PostgreSQL database): a command goes to the next when the first is
/// dead, and `watch` moves on when its daemon is killed, with no gap.
@Suite struct FailoverTests {
    func cluster() throws -> [DaemonProcess] {
        let uri = try PostgresServer.shared().createDatabase()
        return try (0..<2).map { _ in try DaemonProcess(["--store", uri]) }
    }

    @Test func aCommandUsesTheNextURLWhenTheFirstIsDead() throws {
        let nodes = try cluster()
        defer { nodes.forEach { $0.shutdown() } }
        let dead = nodes[0].url
        nodes[0].kill9()
        let r = try foldsync(["toggle", "s0", "--url", "\(dead),\(nodes[1].url)"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(expanded(try boardState(nodes[1])).contains("s0"))
        let env = try foldsync(["show", "--json"], environment: ["FOLDSYNC_URL": "\(dead),\(nodes[1].url)"])
        #expect(env.status == 0 && env.stdout.contains("\"rev\":1"), "\(env.stderr)")
        let boards = try foldsync(["boards", "--url", dead, "--url", nodes[1].url])
        #expect(boards.status == 0 && boards.stdout.contains("default"), "\(boards.stderr)")
        // No URL answers: the old error, naming the last one tried.
        let none = try foldsync(["show", "--url", "\(dead),\(dead)"])
        #expect(none.status == 1 && none.stderr.contains(dead))
    }

    @Test func watchMovesToTheNextDaemonAndResumesWithNoGap() throws {
        let nodes = try cluster()
        defer { nodes.forEach { $0.shutdown() } }
        let dir = try temporaryDirectory()
        let out = dir.appendingPathComponent("watch.out"), err = dir.appendingPathComponent("watch.err")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Build.client)
        p.arguments = ["watch", "--url", "\(nodes[0].url),\(nodes[1].url)"]
        p.standardOutput = try FileHandle(forWritingTo: out)
        p.standardError = try FileHandle(forWritingTo: err)
        try spawn(p)
        defer { if p.isRunning { p.terminate() } }
        func lines() -> [[String: Any]] {
            let text = (try? String(contentsOf: out, encoding: .utf8)) ?? ""
            return text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        }
        func patches() -> [Int] { lines().filter { $0["type"] as? String == "patch" }.compactMap { $0["rev"] as? Int } }
        #expect(eventually { lines().contains { $0["type"] as? String == "snapshot" } })
        for s in ["s0", "s1"] { #expect(try foldsync(["toggle", s, "--url", nodes[1].url]).status == 0) }
        #expect(eventually { patches() == [1, 2] })

        nodes[0].kill9()
        for s in ["s2", "s0", "s1"] { #expect(try foldsync(["toggle", s, "--url", nodes[1].url]).status == 0) }
        #expect(eventually(timeout: 15) { patches() == [1, 2, 3, 4, 5] }, "\(patches())")
        #expect(lines().filter { $0["type"] as? String == "snapshot" }.count == 1, "a resume, not a second snapshot")
        #expect(p.isRunning)
        let said = (try? String(contentsOf: err, encoding: .utf8)) ?? ""
        #expect(said.contains("trying \(nodes[1].url)"), "\(said)")
        p.terminate()
        #expect(eventually(timeout: 5) { !p.isRunning })
    }
}
