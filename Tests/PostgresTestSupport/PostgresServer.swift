import Foundation
import Glibc

/// A real PostgreSQL server for the tests: initdb into a fresh temporary
/// directory, listening on 127.0.0.1 only, on a free port, stopped and
/// removed at the end. Run as the `postgres` user when the tests run as root
/// (initdb refuses root). A missing PostgreSQL is an error, never a skip.
public final class PostgresServer: @unchecked Sendable {
    public let directory: String
    public let port: Int
    let bin: String
    /// Whether the server tools run as `postgres` (the tests run as root).
    let asPostgres: Bool
    private var databases = 0
    private let lock = NSLock()

    /// One server for the whole test process, started on first use and
    /// stopped when the process exits. Each test takes its own database.
    public static func shared() throws -> PostgresServer {
        try sharedServer.get()
    }

    private static let sharedServer: Result<PostgresServer, Error> = Result {
        let s = try PostgresServer()
        atexit { PostgresServer.stopShared() }
        return s
    }

    private static func stopShared() {
        if case .success(let s) = sharedServer { s.destroy() }
    }

    /// initdb and start. Throws with the reason when PostgreSQL is not installed.
    public init() throws {
        bin = try Self.findBin()
        asPostgres = getuid() == 0
        Self.removeStale()
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("foldsync-pg-\(getpid())-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        port = try Self.freePort()
        if asPostgres { _ = try Self.run("/bin/chown", ["postgres:postgres", directory]) }
        _ = try tool("initdb", ["-D", "\(directory)/data", "-A", "trust", "-U", "postgres", "-E", "UTF8",
                                "--no-locale", "-N", "--no-instructions"])
        try start()
        _ = try tool("createuser", ["-h", "127.0.0.1", "-p", String(port), "-U", "postgres", "foldsync"])
    }

    deinit { destroy() }

    /// `pg_ctl start` on the same directory and port (also after `stop`).
    public func start() throws {
        let options = "-c listen_addresses=127.0.0.1 -c port=\(port) -c unix_socket_directories=\(directory) "
            + "-c max_connections=200 -c fsync=off"
        _ = try tool("pg_ctl", ["-D", "\(directory)/data", "-l", "\(directory)/pg.log", "-w", "-t", "30", "-o", options, "start"])
    }

    /// `pg_ctl stop`: `fast` disconnects clients cleanly, `immediate` is a crash.
    public func stop(mode: String = "fast") {
        _ = try? tool("pg_ctl", ["-D", "\(directory)/data", "-m", mode, "-w", "-t", "30", "stop"])
    }

    /// SIGKILL to the postmaster: the server dies with no shutdown at all
    /// (its backends follow when they notice). Returns once the postmaster is
    /// gone; `start()` then runs crash recovery.
    public func kill9() throws {
        let text = try String(contentsOfFile: "\(directory)/data/postmaster.pid", encoding: .utf8)
        guard let pid = text.split(separator: "\n").first.flatMap({ Int32($0) }) else {
            throw PostgresHarnessError("no pid in postmaster.pid")
        }
        Glibc.kill(pid, SIGKILL)
        let deadline = Date().addingTimeInterval(10)
        while Glibc.kill(pid, 0) == 0 && Date() < deadline { usleep(10_000) }
    }

    /// `start()`, tried again for up to `seconds` while the backends of a
    /// killed server still hold its shared memory.
    public func restartAfterCrash(seconds: Double = 20) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            do { return try start() } catch where Date() < deadline { usleep(200_000) }
        }
    }

    /// A fresh, empty database owned by `foldsync`; its URI.
    public func createDatabase() throws -> String {
        let name = lock.withLock { () -> String in
            databases += 1
            return "foldsync_\(databases)"
        }
        _ = try tool("createdb", ["-h", "127.0.0.1", "-p", String(port), "-U", "postgres", "-O", "foldsync", name])
        return "postgresql://foldsync@127.0.0.1:\(port)/\(name)"
    }

    /// Runs SQL with psql as `foldsync` on the database at `uri`; the rows, `|`-separated.
    @discardableResult
    public func psql(_ uri: String, _ sql: String) throws -> String {
        try Self.run("\(bin)/psql", [uri, "-v", "ON_ERROR_STOP=1", "-Atc", sql])
    }

    /// Stops the server (as a crash: nothing needs to survive) and removes its directory.
    public func destroy() {
        guard FileManager.default.fileExists(atPath: directory) else { return }
        stop(mode: "immediate")
        try? FileManager.default.removeItem(atPath: directory)
    }

    func tool(_ name: String, _ args: [String]) throws -> String {
        asPostgres
            ? try Self.run("/usr/sbin/runuser", ["-u", "postgres", "--", "\(bin)/\(name)"] + args, in: directory)
            : try Self.run("\(bin)/\(name)", args, in: directory)
    }
}
