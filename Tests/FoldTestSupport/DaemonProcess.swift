import Foundation
import Glibc

/// The one way every live test target starts the daemon: the real
/// `foldsyncd` binary as a child process on 127.0.0.1, port 0, with a store
/// in a fresh temporary directory that `shutdown()` (or deinit) removes.
/// Its stderr is kept; the port is read from its `listening on` line.
///
/// Used from one test at a time; `stderr` and the log helpers from any thread.
public final class DaemonProcess: @unchecked Sendable {
    public let directory: URL
    public let flags: [String]
    /// Extra environment variables for the child (on top of the test runner's).
    public let environment: [String: String]
    /// `--listen` value put first, or nil to leave it to the flags, environment or config file.
    public let listen: String?
    /// The configuration file written before the first start (`--config` points at it), if any.
    public let configPath: String?
    /// The daemon's working directory (nil: the test runner's), for relative paths in `flags`.
    public let workingDirectory: URL?
    /// The daemon's own descriptor limit (soft and hard, set by `ulimit -n` before its exec), if any.
    public let descriptorLimit: Int?
    public private(set) var port = 0
    public private(set) var process: Process?
    private let log = LogBuffer()
    /// Signalled when the running process's stderr reaches its end: after an
    /// exit, `stderr` holds its last lines only once this has come.
    private var stderrEnded: DispatchSemaphore?

    public var dbPath: String { directory.appendingPathComponent("foldsync.db").path }
    public var pid: Int32 { process?.processIdentifier ?? 0 }
    /// The WebSocket endpoint, for clients that take a URL.
    public var url: String { "ws://127.0.0.1:\(port)/ws" }
    /// Everything the daemon wrote to stderr, over all its runs.
    public var stderr: String { log.text.withLock { $0 } }

    /// Starts a daemon with `flags` added after `--listen` and `--db`;
    /// `environment` is added to the child's; `config` (file text) is written
    /// to `configPath` and passed with `--config`; `listen` nil omits `--listen`;
    /// `descriptorLimit` caps the daemon's open descriptors.
    public init(_ flags: [String] = [], environment: [String: String] = [:], config: String? = nil,
                listen: String? = "127.0.0.1:0", workingDirectory: URL? = nil, descriptorLimit: Int? = nil) throws {
        self.workingDirectory = workingDirectory
        self.descriptorLimit = descriptorLimit
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("foldsyncd-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        self.environment = environment
        self.listen = listen
        if let config {
            let path = directory.appendingPathComponent("foldsyncd.conf").path
            try config.write(toFile: path, atomically: true, encoding: .utf8)
            configPath = path
            self.flags = ["--config", path] + flags
        } else {
            configPath = nil
            self.flags = flags
        }
        do {
            try launch(listen: listen)
        } catch {
            shutdown()
            throw error
        }
    }

    deinit { shutdown() }

    /// `$FOLDSYNCD_BIN`, else `.build/debug/foldsyncd` in the package holding this file.
    public static var binary: String {
        if let env = ProcessInfo.processInfo.environment["FOLDSYNCD_BIN"], !env.isEmpty { return env }
        var dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while dir.path != "/" {
            if FileManager.default.fileExists(atPath: dir.appendingPathComponent("Package.swift").path) {
                return dir.appendingPathComponent(".build/debug/foldsyncd").path
            }
            dir.deleteLastPathComponent()
        }
        return ".build/debug/foldsyncd"
    }

    /// Starts the binary with `--listen listen` (nil: none) and waits (at
    /// most 10 s) for its `listening on` line.
    private func launch(listen: String?) throws {
        let p = Process()
        let arguments = (listen.map { ["--listen", $0] } ?? []) + ["--db", dbPath] + flags
        if let descriptorLimit {
            // The shell sets the limit and becomes the daemon: the same process.
            p.executableURL = URL(fileURLWithPath: "/bin/sh")
            p.arguments = ["-c", "ulimit -n \(descriptorLimit) && exec \"$0\" \"$@\"", Self.binary] + arguments
        } else {
            p.executableURL = URL(fileURLWithPath: Self.binary)
            p.arguments = arguments
        }
        if let workingDirectory { p.currentDirectoryURL = workingDirectory }
        if !environment.isEmpty {
            p.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let pipe = Pipe()
        p.standardError = pipe
        p.standardOutput = FileHandle.nullDevice
        p.standardInput = FileHandle.nullDevice
        let mark = log.text.withLock { $0.utf8.count }
        try spawn(p)
        process = p
        let ended = DispatchSemaphore(value: 0)
        stderrEnded = ended
        let reader = Thread { [log] in
            defer { ended.signal() }
            // The handle owns the descriptor: keep it until EOF.
            let handle = pipe.fileHandleForReading
            let fd = handle.fileDescriptor
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = read(fd, &buffer, buffer.count)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                let text = String(decoding: buffer[0..<n], as: UTF8.self)
                log.text.withLock { $0 += text }
            }
            withExtendedLifetime(handle) {}
        }
        reader.start()
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            let text = log.text.withLock { String(decoding: $0.utf8.dropFirst(mark), as: UTF8.self) }
            if let range = text.range(of: "listening on ") {
                // `listening on HOST:PORT (...)`, HOST an IPv4 address or [IPv6].
                let address = text[range.upperBound...].prefix { $0 != " " && $0 != "\n" }
                if let colon = address.lastIndex(of: ":") {
                    let rest = address[address.index(after: colon)...]
                    let digits = rest.prefix { $0.isNumber }
                    if let port = Int(digits), port > 0, address.endIndex < text.endIndex {
                        self.port = port
                        return
                    }
                }
            }
            if !p.isRunning { break }
            usleep(10_000)
        }
        throw HarnessError("foldsyncd did not report its port within 10 s; stderr:\n\(stderr)")
    }

    /// SIGTERM, then wait up to `timeout` seconds; returns the exit status (nil if it did not exit).
    @discardableResult
    public func stop(timeout: Double = 10) -> Int32? {
        guard let p = process else { return nil }
        if p.isRunning { kill(p.processIdentifier, SIGTERM) }
        let deadline = Date().addingTimeInterval(timeout)
        while p.isRunning && Date() < deadline { usleep(10_000) }
        guard !p.isRunning else { return nil }
        return ended(p)
    }

    /// The process has exited: its last stderr is read in (within 5 s: a
    /// child it left holding the pipe does not hold the test), and its status.
    private func ended(_ p: Process) -> Int32 {
        _ = stderrEnded?.wait(timeout: .now() + 5)
        stderrEnded = nil
        process = nil
        return p.terminationStatus
    }

    /// Sends `sig` (SIGHUP, SIGINT, ...) without waiting.
    public func signal(_ sig: Int32) {
        if let p = process, p.isRunning { kill(p.processIdentifier, sig) }
    }

    /// Waits up to `timeout` seconds for the process to end; its exit status, or nil if it still runs.
    public func waitForExit(timeout: Double = 10) -> Int32? {
        guard let p = process else { return nil }
        let deadline = Date().addingTimeInterval(timeout)
        while p.isRunning && Date() < deadline { usleep(10_000) }
        guard !p.isRunning else { return nil }
        return ended(p)
    }

    /// Byte length of stderr so far: a mark for `waitForLog(_:after:)`.
    public var logMark: Int { log.text.withLock { $0.utf8.count } }

    /// Stderr written after `mark`.
    public func log(after mark: Int) -> String {
        log.text.withLock { String(decoding: $0.utf8.dropFirst(mark), as: UTF8.self) }
    }

    /// Waits up to `timeout` seconds for `text` to appear in stderr after `mark`.
    public func waitForLog(_ text: String, after mark: Int = 0, timeout: Double = 10) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if log(after: mark).contains(text) { return true }
            if Date() >= deadline { return false }
            usleep(20_000)
        }
    }

    /// Rewrites the configuration file (for a SIGHUP reload).
    public func writeConfig(_ text: String) throws {
        guard let configPath else { throw HarnessError("this daemon was started without a configuration file") }
        try text.write(toFile: configPath, atomically: true, encoding: .utf8)
    }

    /// Sends SIGTERM without waiting.
    public func terminate() {
        if let p = process, p.isRunning { kill(p.processIdentifier, SIGTERM) }
    }

    /// SIGKILL: a crash, with no chance to flush anything.
    public func kill9() {
        guard let p = process else { return }
        kill(p.processIdentifier, SIGKILL)
        let deadline = Date().addingTimeInterval(10)
        while p.isRunning && Date() < deadline { usleep(5_000) }
        if !p.isRunning { _ = ended(p) }
        process = nil
    }

    /// Starts the binary again on the same store (after `stop()` or
    /// `kill9()`): on a new port, or with `samePort` on the one it had, as a
    /// service restart would (clients then reconnect to the same URL).
    public func restart(samePort: Bool = false) throws {
        // Thrown, not a precondition: a daemon that did not stop fails its test, not the whole run.
        guard process == nil else { throw HarnessError("the daemon still runs: stop it before restarting it\n\(stderr)") }
        guard samePort, let listen else { return try launch(listen: listen) }
        let host = listen[..<(listen.lastIndex(of: ":") ?? listen.endIndex)]
        try launch(listen: "\(host):\(port)")
    }

    /// Kills whatever still runs and removes the temporary directory.
    public func shutdown() {
        if let p = process, p.isRunning {
            kill(p.processIdentifier, SIGKILL)
            let deadline = Date().addingTimeInterval(5)
            while p.isRunning && Date() < deadline { usleep(5_000) }
        }
        process = nil
        try? FileManager.default.removeItem(at: directory)
    }

    /// Resident memory of the daemon in kB, from /proc; throws when it cannot
    /// be read, so a memory bound is never skipped (least of all when the
    /// number has grown).
    public func residentKB() throws -> Int {
        let path = "/proc/\(pid)/status"
        guard let status = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw HarnessError("cannot read \(path) (the daemon has gone?)")
        }
        guard let kb = Self.residentKB(status: status) else { throw HarnessError("no VmRSS in \(path):\n\(status)") }
        return kb
    }

    /// The `VmRSS:` field of a /proc/PID/status text in kB: a tab or any
    /// number of spaces before the value, any number of digits, the unit
    /// `kB`; nil when the field is missing or malformed.
    public static func residentKB(status: String) -> Int? {
        for line in status.split(whereSeparator: \.isNewline) where line.hasPrefix("VmRSS:") {
            let fields = line.dropFirst("VmRSS:".count).split(whereSeparator: \.isWhitespace)
            guard fields.count == 2, fields[1] == "kB", let kb = Int(fields[0]), kb >= 0 else { return nil }
            return kb
        }
        return nil
    }

    /// Runs the binary once to completion (`--check-config`, `hash-token`, a
    /// start that must fail): exit status, stdout and stderr. Killed after `timeout`.
    public static func runOnce(_ arguments: [String], environment: [String: String] = [:], stdin: String? = nil,
                        timeout: Double = 10) throws -> (status: Int32, stdout: String, stderr: String) {
        try runTool(binary, arguments, environment: environment, stdin: stdin, timeout: timeout)
    }
}
