import Foundation
import Glibc
import Synchronization

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
    private(set) var port = 0
    private(set) var process: Process?
    private let log = LogBuffer()

    var dbPath: String { directory.appendingPathComponent("foldsync.db").path }
    var pid: Int32 { process?.processIdentifier ?? 0 }
    /// Everything the daemon wrote to stderr, over all its runs.
    var stderr: String { log.text.withLock { $0 } }

    /// Starts a daemon with `flags` added after `--listen` and `--db`.
    init(_ flags: [String] = []) throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("foldsyncd-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        self.flags = flags
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
        p.arguments = ["--listen", "127.0.0.1:0", "--db", dbPath] + flags
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
            if let range = text.range(of: "listening on 127.0.0.1:") {
                let rest = text[range.upperBound...]
                let digits = rest.prefix { $0.isNumber }
                if let port = Int(digits), port > 0, rest.count > digits.count {
                    self.port = port
                    return
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
    func connect(protocols: [String] = [], receiveBuffer: Int? = nil, keepHello: Bool = false) throws -> TestSocket {
        let s = try TestSocket(port: port, protocols: protocols, receiveBuffer: receiveBuffer)
        if !keepHello {
            let hello = try s.recvJSON()
            guard hello["type"]?.stringValue == "hello" else { throw HarnessError("first message was not hello: \(hello)") }
        }
        return s
    }

    /// An HTTP request to this daemon.
    func http(_ method: String, _ path: String, body: String? = nil) throws -> HTTPReply {
        try HTTPClient.request(port: port, method: method, path: path, body: body)
    }
}

/// The daemon's stderr, appended by the reader thread. Any thread.
final class LogBuffer: Sendable {
    let text = Mutex<String>("")
}
