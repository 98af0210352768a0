import FoldTestSupport
import Foundation
import Testing

/// The configuration file, the environment and flags: precedence,
/// `--check-config`, unknown keys.
@Suite struct ConfigFileTests {
    /// How many sections the default board (3 sections) can grow to: adds
    /// sections until one is refused `invalid`, and returns the count reached.
    static func sectionLimit(_ d: DaemonProcess, upTo max: Int = 12) throws -> Int {
        let c = try d.connect()
        var count = try #require(try d.http("GET", "/api/boards/default").json()["state"]?.sectionIDs.count)
        for i in 0..<max {
            let a = try c.answer(Wire.action(.addSection, id: "a\(i)", #""section":{"title":"extra \#(i)"}"#), id: "a\(i)")
            if a.type == "error" {
                #expect(a.code == "invalid", "\(a)")
                return count
            }
            count += 1
        }
        return count
    }

    @Test func flagsWinOverEnvironmentWhichWinsOverTheFile() throws {
        let file = "# limits\nmax-sections = 4   # from the file\n"
        let env = ["FOLDSYNC_MAX_SECTIONS": "5"]
        do {
            let d = try DaemonProcess(config: file)
            defer { d.shutdown() }
            #expect(try Self.sectionLimit(d) == 4)
        }
        do {
            let d = try DaemonProcess(environment: env, config: file)
            defer { d.shutdown() }
            #expect(try Self.sectionLimit(d) == 5)
        }
        do {
            let d = try DaemonProcess(["--max-sections", "6"], environment: env, config: file)
            defer { d.shutdown() }
            #expect(try Self.sectionLimit(d) == 6)
        }
        do {
            // The environment alone, and a dashed key with several words.
            let d = try DaemonProcess(environment: ["FOLDSYNC_MAX_SECTIONS": "4", "FOLDSYNC_MAX_TITLE_BYTES": "8"])
            defer { d.shutdown() }
            let c = try d.connect()
            #expect(try c.answer(Wire.action(.setTitle, id: "t", #""section":"s0","title":"123456789""#), id: "t").code == "invalid")
            #expect(try Self.sectionLimit(d) == 4)
        }
    }

    static func tempFile(_ text: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("foldsyncd-\(UUID().uuidString).conf").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func checkConfigAcceptsAGoodFile() throws {
        let path = try Self.tempFile("""
            # a documented configuration
            listen = 127.0.0.1:0
            log-level = debug
            max-sections = 50   # trailing comment

            max-message-bytes = 131072
            shutdown-timeout = 3
            token = \(Tokens.spec("admin", "read,fold,edit,admin", Tokens.admin))
            token = \(Tokens.spec("ops", "read", Tokens.ops, "ops-*"))
            allow-origin = https://dash.example:8443
            metrics-public = true
            """)
        defer { unlink(path) }
        let r = try DaemonProcess.runOnce(["--config", path, "--check-config"])
        #expect(r.status == 0, "stderr: \(r.stderr)")
        #expect(r.stdout.contains("configuration ok"), "stdout: \(r.stdout)")
        #expect(r.stderr.isEmpty, "stderr: \(r.stderr)")
    }

    @Test func checkConfigListsEveryProblemWithItsLine() throws {
        let path = try Self.tempFile("""
            # line 1: comment
            max-sections = many
            max-items = 10
            max-sectoins = 3
            this line has no equals sign
            log-level = loud
            token = admin read,fly 0123
            """)
        defer { unlink(path) }
        let r = try DaemonProcess.runOnce(["--config", path, "--check-config"])
        #expect(r.status == 2, "stdout: \(r.stdout) stderr: \(r.stderr)")
        let lines = r.stderr.split(separator: "\n").map(String.init)
        for n in [2, 4, 5, 6, 7] {
            #expect(lines.contains { $0.contains("\(path):\(n):") }, "no problem reported on line \(n): \(r.stderr)")
        }
        #expect(!lines.contains { $0.contains("\(path):3:") || $0.contains("\(path):1:") }, "\(r.stderr)")
        #expect(lines.count == 5, "one line per problem: \(r.stderr)")
        #expect(lines.contains { $0.contains(":4:") && $0.contains("max-sectoins") }, "\(r.stderr)")
        #expect(!r.stdout.contains("configuration ok"))

        // A bad environment value is a problem too, named by its variable.
        let good = try Self.tempFile("max-sections = 10\n")
        defer { unlink(good) }
        let e = try DaemonProcess.runOnce(["--config", good, "--check-config"], environment: ["FOLDSYNC_MAX_SECTIONS": "zero"])
        #expect(e.status == 2)
        #expect(e.stderr.contains("FOLDSYNC_MAX_SECTIONS"), "\(e.stderr)")
    }

    @Test func anUnknownKeyInTheFileStopsTheStart() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("foldsyncd-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("f.conf").path
        try "max-sections = 10\nmax-conections = 5\n".write(toFile: path, atomically: true, encoding: .utf8)
        let r = try DaemonProcess.runOnce(["--listen", "127.0.0.1:0", "--db", dir.appendingPathComponent("db").path, "--config", path])
        #expect(r.status == 2, "stderr: \(r.stderr)")
        #expect(r.stderr.contains("\(path):2:") && r.stderr.contains("max-conections"), "\(r.stderr)")
        #expect(!r.stderr.contains("listening on"))
        // A missing file named by --config is an error too.
        let m = try DaemonProcess.runOnce(["--listen", "127.0.0.1:0", "--db", dir.appendingPathComponent("db").path,
                                           "--config", dir.appendingPathComponent("missing.conf").path])
        #expect(m.status == 2, "\(m.stderr)")
    }
}
