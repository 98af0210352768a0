import Foundation
import Glibc

/// A failure in the test harness itself (the daemon did not start, a socket
/// broke), thrown so the test stops with a readable reason.
struct HarnessError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The real `foldsyncd` binary run as a child process on 127.0.0.1, port 0,
/// with a store in a fresh temporary directory that `shutdown()` removes.
final class DaemonProcess: @unchecked Sendable {
    let directory: URL
    let flags: [String]
    /// Extra environment variables for the child (on top of the test runner's).
    let environment: [String: String]
    /// `--listen` value put first, or nil to leave it to the flags, environment or config file.
    let listen: String?
    /// The configuration file written before the first start (`--config` points at it), if any.
    let configPath: String?
    private(set) var port = 0
    private(set) var process: Process?
    private let log = LogBuffer()

    var dbPath: String { directory.appendingPathComponent("foldsync.db").path }
    var pid: Int32 { process?.processIdentifier ?? 0 }
    /// Everything the daemon wrote to stderr, over all its runs.
    var stderr: String { log.text.withLock { $0 } }

    /// Starts a daemon with `flags` added after `--listen` and `--db`;
    /// `environment` is added to the child's; `config` (file text) is written
    /// to `configPath` and passed with `--config`; `listen` nil omits `--listen`.
    init(_ flags: [String] = [], environment: [String: String] = [:], config: String? = nil,
         listen: String? = "127.0.0.1:0") throws {
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
            try launch()
        } catch {
            shutdown()
            throw error
        }
    }

    deinit { shutdown() }

    /// `$FOLDSYNCD_BIN`, else `.build/debug/foldsyncd` in the package holding this file.
    static var binary: String {
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

    /// Starts the binary and waits (at most 10 s) for its `listening on` line.
    private func launch() throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Self.binary)
        p.arguments = (listen.map { ["--listen", $0] } ?? []) + ["--db", dbPath] + flags
        if !environment.isEmpty {
            p.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let pipe = Pipe()
        p.standardError = pipe
        p.standardOutput = FileHandle.nullDevice
        p.standardInput = FileHandle.nullDevice
        let mark = log.text.withLock { $0.utf8.count }
        try p.run()
        process = p
        let reader = Thread { [log] in
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
    func stop(timeout: Double = 10) -> Int32? {
        guard let p = process else { return nil }
        if p.isRunning { kill(p.processIdentifier, SIGTERM) }
        let deadline = Date().addingTimeInterval(timeout)
        while p.isRunning && Date() < deadline { usleep(10_000) }
        guard !p.isRunning else { return nil }
        process = nil
        return p.terminationStatus
    }

    /// Sends `sig` (SIGHUP, SIGINT, ...) without waiting.
    func signal(_ sig: Int32) {
        if let p = process, p.isRunning { kill(p.processIdentifier, sig) }
    }

    /// Waits up to `timeout` seconds for the process to end; its exit status, or nil if it still runs.
    func waitForExit(timeout: Double = 10) -> Int32? {
        guard let p = process else { return nil }
        let deadline = Date().addingTimeInterval(timeout)
        while p.isRunning && Date() < deadline { usleep(10_000) }
        guard !p.isRunning else { return nil }
        process = nil
        return p.terminationStatus
    }

    /// Byte length of stderr so far: a mark for `waitForLog(_:after:)`.
    var logMark: Int { log.text.withLock { $0.utf8.count } }

    /// Stderr written after `mark`.
    func log(after mark: Int) -> String {
        log.text.withLock { String(decoding: $0.utf8.dropFirst(mark), as: UTF8.self) }
    }

    /// Waits up to `timeout` seconds for `text` to appear in stderr after `mark`.
    func waitForLog(_ text: String, after mark: Int = 0, timeout: Double = 10) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if log(after: mark).contains(text) { return true }
            if Date() >= deadline { return false }
            usleep(20_000)
        }
    }

    /// Rewrites the configuration file (for a SIGHUP reload).
    func writeConfig(_ text: String) throws {
        guard let configPath else { throw HarnessError("this daemon was started without a configuration file") }
        try text.write(toFile: configPath, atomically: true, encoding: .utf8)
    }

    /// Sends SIGTERM without waiting.
    func terminate() {
        if let p = process, p.isRunning { kill(p.processIdentifier, SIGTERM) }
    }

    /// SIGKILL: a crash, with no chance to flush anything.
    func kill9() {
        guard let p = process else { return }
        kill(p.processIdentifier, SIGKILL)
        let deadline = Date().addingTimeInterval(10)
        while p.isRunning && Date() < deadline { usleep(5_000) }
        process = nil
    }

    /// Starts the binary again on the same store (after `stop()` or `kill9()`); the port changes.
    func restart() throws {
        precondition(process == nil, "stop the daemon before restarting it")
        try launch()
    }

    /// Kills whatever still runs and removes the temporary directory.
    func shutdown() {
        if let p = process, p.isRunning {
            kill(p.processIdentifier, SIGKILL)
            let deadline = Date().addingTimeInterval(5)
            while p.isRunning && Date() < deadline { usleep(5_000) }
        }
        process = nil
        try? FileManager.default.removeItem(at: directory)
    }

    /// Resident memory of the daemon in kB, from /proc.
    func residentKB() -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return line.split(separator: " ").dropFirst().first.flatMap { Int($0) }
        }
        return nil
    }

    /// A new WebSocket client of this daemon, past its `hello` unless `keepHello`.
    func connect(protocols: [String] = [], receiveBuffer: Int? = nil, keepHello: Bool = false,
                 path: String = "/ws", host: String? = nil, headers: [(String, String)] = []) throws -> TestSocket {
        let s = try TestSocket(port: port, protocols: protocols, receiveBuffer: receiveBuffer,
                               path: path, host: host, headers: headers)
        if !keepHello {
            let hello = try s.recvJSON()
            guard hello["type"]?.stringValue == "hello" else { throw HarnessError("first message was not hello: \(hello)") }
        }
        return s
    }

    /// An HTTP request to this daemon.
    func http(_ method: String, _ path: String, body: String? = nil, headers: [(String, String)] = []) throws -> HTTPReply {
        try HTTPClient.request(port: port, method: method, path: path, body: body, headers: headers)
    }

    /// Runs the binary once to completion (`--check-config`, `hash-token`, a
    /// start that must fail): exit status, stdout and stderr. Killed after `timeout`.
    static func runOnce(_ arguments: [String], environment: [String: String] = [:], stdin: String? = nil,
                        timeout: Double = 10) throws -> (status: Int32, stdout: String, stderr: String) {
        try runTool(binary, arguments, environment: environment, stdin: stdin, timeout: timeout)
    }
}

/// Runs any program to completion with bounded time; a missing program throws.
func runTool(_ executable: String, _ arguments: [String], environment: [String: String] = [:], stdin: String? = nil,
             timeout: Double = 30) throws -> (status: Int32, stdout: String, stderr: String) {
    let p = Process()
    if executable.hasPrefix("/") {
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = arguments
    } else {
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = [executable] + arguments
    }
    p.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    let out = Pipe(), err = Pipe(), input = Pipe()
    p.standardOutput = out
    p.standardError = err
    p.standardInput = input
    let outBuf = LogBuffer(), errBuf = LogBuffer()
    var readers: [Thread] = []
    for (pipe, buf) in [(out, outBuf), (err, errBuf)] {
        let t = Thread {
            let handle = pipe.fileHandleForReading
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let n = read(handle.fileDescriptor, &buffer, buffer.count)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                let text = String(decoding: buffer[0..<n], as: UTF8.self)
                buf.text.withLock { $0 += text }
            }
            withExtendedLifetime(handle) {}
        }
        readers.append(t)
    }
    try p.run()
    readers.forEach { $0.start() }
    if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
    try? input.fileHandleForWriting.close()
    let deadline = Date().addingTimeInterval(timeout)
    while p.isRunning && Date() < deadline { usleep(10_000) }
    if p.isRunning {
        kill(p.processIdentifier, SIGKILL)
        p.waitUntilExit()
        throw HarnessError("\(executable) \(arguments.joined(separator: " ")) did not finish within \(timeout) s")
    }
    p.waitUntilExit()
    // The readers end at EOF, which comes once the child (and its children) closed the pipes.
    let readDeadline = Date().addingTimeInterval(5)
    while readers.contains(where: { !$0.isFinished }) && Date() < readDeadline { usleep(5_000) }
    return (p.terminationStatus, outBuf.text.withLock { $0 }, errBuf.text.withLock { $0 })
}

/// The daemon's stderr, appended by the reader thread. Any thread.
final class LogBuffer: Sendable {
    let text = PthreadLocked("")
}

/// A string behind a pthread mutex (which ThreadSanitizer understands,
/// unlike `Synchronization.Mutex`'s contended path).
final class PthreadLocked: @unchecked Sendable {
    private var value: String
    private let lock = NSLock()

    init(_ value: String) { self.value = value }

    func withLock<R>(_ body: (inout String) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
