import Foundation
import Glibc

/// A failure of the PostgreSQL test harness, with what to do about it.
public struct PostgresHarnessError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}

extension PostgresServer {
    /// `$FOLDSYNC_PG_BIN`, else the newest /usr/lib/postgresql/N/bin holding initdb.
    static func findBin() throws -> String {
        if let env = ProcessInfo.processInfo.environment["FOLDSYNC_PG_BIN"], !env.isEmpty { return env }
        let root = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).compactMap(Int.init).sorted()
        for v in versions.reversed() where FileManager.default.isExecutableFile(atPath: "\(root)/\(v)/bin/initdb") {
            return "\(root)/\(v)/bin"
        }
        throw PostgresHarnessError("no PostgreSQL server (initdb) under \(root): apt-get install postgresql libpq-dev (see .ci/run)")
    }

    /// A port nobody listens on now: bind port 0 on loopback, read it, close.
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw PostgresHarnessError("socket: errno \(errno)") }
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = 0
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) == 0 && getsockname(fd, $0, &len) == 0 }
        }
        guard ok else { throw PostgresHarnessError("bind: errno \(errno)") }
        return Int(UInt16(bigEndian: addr.sin_port))
    }

    /// Servers left by test processes that died without cleaning up.
    static func removeStale() {
        let tmp = FileManager.default.temporaryDirectory.path
        for name in (try? FileManager.default.contentsOfDirectory(atPath: tmp)) ?? [] where name.hasPrefix("foldsync-pg-") {
            let parts = name.split(separator: "-")
            guard parts.count >= 3, let owner = Int32(parts[2]), owner != getpid(), kill(owner, 0) != 0, errno == ESRCH else { continue }
            let dir = "\(tmp)/\(name)"
            let pidFile = (try? String(contentsOfFile: "\(dir)/data/postmaster.pid", encoding: .utf8)) ?? ""
            if let pid = pidFile.split(separator: "\n").first.flatMap({ Int32($0) }) { kill(pid, SIGQUIT) }
            try? FileManager.default.removeItem(atPath: dir)
        }
    }

    /// Runs a program to completion (at most 60 s); its stdout. A non-zero exit throws with stderr.
    ///
    /// posix_spawn, not Foundation's Process: `pg_ctl start` leaves the server
    /// running with whatever descriptors it inherited, and Process notices an
    /// exit only when its own inherited socket closes, which then never happens.
    /// Here the child gets files for output and no other descriptor of ours.
    @discardableResult
    static func run(_ path: String, _ args: [String], in directory: String? = nil) throws -> String {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("pg-run-\(UUID().uuidString)").path
        let outPath = base + ".out", errPath = base + ".err"
        defer { unlink(outPath); unlink(errPath) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // Results ignored: each fails only on a bad argument or no memory, and then the spawn fails.
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        _ = fs_addclosefrom(&actions, 3)
        if let directory { _ = fs_addchdir(&actions, directory) }
        let argv = ([path] + args).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, path, &actions, nil, argv, environ)
        guard rc == 0 else { throw PostgresHarnessError("cannot run \(path): errno \(rc)") }
        var status: Int32 = 0
        let deadline = Date().addingTimeInterval(60)
        while waitpid(pid, &status, WNOHANG) == 0 {
            if Date() > deadline {
                kill(pid, SIGKILL)
                waitpid(pid, &status, 0)
                throw PostgresHarnessError("\(path) \(args.joined(separator: " ")) did not finish within 60 s")
            }
            usleep(5_000)
        }
        let stdout = (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
        // Exited normally with status 0 (WIFEXITED and WEXITSTATUS, which Swift does not import).
        guard status & 0x7f == 0, (status >> 8) & 0xff == 0 else {
            let stderr = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
            throw PostgresHarnessError("\(path) \(args.joined(separator: " ")) failed (wait status \(status)): \(stderr)")
        }
        return stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

// glibc's GNU extensions (2.29 and 2.34), hidden from Swift's Glibc module
// without _GNU_SOURCE: declared here rather than adding a C target to the tests.
@_silgen_name("posix_spawn_file_actions_addclosefrom_np")
private func fs_addclosefrom(_ actions: UnsafeMutablePointer<posix_spawn_file_actions_t>, _ from: Int32) -> Int32
@_silgen_name("posix_spawn_file_actions_addchdir_np")
private func fs_addchdir(_ actions: UnsafeMutablePointer<posix_spawn_file_actions_t>, _ path: UnsafePointer<CChar>) -> Int32
