import FoldTestSupport
import Foundation
import Testing

/// `--token-command`: a `watch` in a real terminal outlives three JWTs of
/// 3 s each, because the client runs the command again on `authExpiring`
/// and sends the new token in band. The tokens come from PyJWT
/// (Tests/jwt/mint.py in the test virtualenv that .ci/run makes).
@Suite struct TokenCommandTests {
    static var python: String {
        get throws {
            let env = ProcessInfo.processInfo.environment["FOLDSYNC_JWT_PYTHON"] ?? ""
            let path = env.isEmpty ? Build.root.appendingPathComponent(".build/jwt-venv/bin/python").path : env
            guard FileManager.default.isExecutableFile(atPath: path) else {
                throw HarnessError("no PyJWT virtualenv at \(path) (make jwt-venv)")
            }
            return path
        }
    }

    @Test func aWatchOutlivesThreeTokensInTmux() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let secret = dir.appendingPathComponent("jwt.secret").path
        try Data((0..<48).map { _ in UInt8.random(in: 0...255) }).write(to: URL(fileURLWithPath: secret))
        let count = dir.appendingPathComponent("runs").path
        let mint = Build.root.appendingPathComponent("Tests/jwt/mint.py").path
        let spec = #"{"alg":"HS256","key":"\#(secret)","life":3,"claims":{"sub":"wall","foldsync":{"*":["read","fold"]}}}"#
        let script = dir.appendingPathComponent("token.sh").path
        try "echo run >> '\(count)'\nexec '\(try Self.python)' '\(mint)' sign '\(spec)'\n".write(toFile: script, atomically: true, encoding: .utf8)
        let runs = { ((try? String(contentsOfFile: count, encoding: .utf8)) ?? "").split(separator: "\n").count }

        let d = try DaemonProcess(["--jwt-key", "HS256:\(secret)", "--jwt-refresh-before", "1", "--jwt-leeway", "0"])
        defer { d.shutdown() }
        // Snapshots and patches only (authExpiring and authenticated come every
        // second or so), cut short so that each is one row of the pane.
        let t = try Tmux(width: 100, height: 30, command: "\(Build.client) watch --url \(d.url) --token-command 'sh \(script)' | grep --line-buffered -E 'snapshot|patch' | cut -c1-60")
        try t.waitFor(text: #"{"type":"snapshot""#)
        let started = Date()
        // Three lifetimes, a change in each, made by another client signing in the same way.
        for round in 1...3 {
            let section = "s\(round - 1)"
            usleep(UInt32(3_000_000))
            let toggle = try foldsync(["toggle", section, "--url", d.url, "--token-command", "sh \(script)"])
            #expect(toggle.status == 0, "\(toggle.stderr)")
            try t.waitFor("patch \(round)") { $0.filter { $0.contains(#"{"type":"patch""#) }.count == round }
        }
        #expect(Date().timeIntervalSince(started) >= 9)
        let screen = t.screen()
        // One snapshot: the watch never reconnected (with one URL, losing the connection ends it).
        #expect(screen.filter { $0.contains(#""type":"snapshot""#) }.count == 1, "\(screen.joined(separator: "\n"))")
        #expect(!screen.contains { $0.contains("Pane is dead") || $0.contains("foldsync:") }, "\(screen.joined(separator: "\n"))")
        // The watch's first token and at least three refreshes, plus one for each toggle.
        #expect(runs() >= 4 + 3, "\(runs()) token runs")
        #expect(d.stderr.contains("token expired") == false)
    }

    @Test func aFailingCommandIsReportedAndTheDaemonRefuses() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let secret = dir.appendingPathComponent("jwt.secret").path
        try Data(repeating: 7, count: 32).write(to: URL(fileURLWithPath: secret))
        let d = try DaemonProcess(["--jwt-key", "HS256:\(secret)"])
        defer { d.shutdown() }
        let failed = try foldsync(["toggle", "s1", "--url", d.url, "--token-command", "echo no idp >&2; exit 3"])
        #expect(failed.status != 0)
        #expect(failed.stderr.contains("--token-command exited with 3: no idp"), "\(failed.stderr)")
        let both = try foldsync(["toggle", "s1", "--url", d.url, "--token", "x", "--token-command", "true"])
        #expect(both.status == 2 && both.stderr.contains("use one"), "\(both.stderr)")
    }

    /// A command still running after `TokenCommand.timeout` (10 s) is
    /// stopped with what it started (its process group: a child the shell
    /// left behind, too), and the client says so.
    @Test func aCommandPastItsTimeIsStoppedWithWhatItStarted() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let pidFile = dir.appendingPathComponent("sleep.pid").path
        let d = try DaemonProcess()
        defer { d.shutdown() }
        let run = try foldsync(["show", "--url", d.url, "--token-command", "sleep 60 & echo $! > \(pidFile); wait"], timeout: 40)
        #expect(run.stderr.contains("--token-command took longer than 10 s"), "\(run.stderr)")
        let pid = try #require(Int32(String(contentsOfFile: pidFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
        // Gone, or a zombie until whoever adopted it reaps it.
        func running() -> Bool {
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                  let state = stat.split(separator: ")").last?.split(separator: " ").first else { return false }
            return state != "Z"
        }
        let end = Date().addingTimeInterval(5)
        while running() && Date() < end { usleep(50_000) }
        #expect(!running(), "sleep \(pid) still runs")
    }
}
