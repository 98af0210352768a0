import Foundation
import Glibc

/// Runs any program to completion with bounded time; a missing program throws.
public func runTool(_ executable: String, _ arguments: [String], environment: [String: String] = [:], stdin: String? = nil,
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
    try spawn(p)
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

/// A child's output, appended by its reader thread. Any thread.
final class LogBuffer: Sendable {
    let text = PthreadLocked("")
}

/// A value behind a pthread mutex (which ThreadSanitizer understands,
/// unlike `Synchronization.Mutex`'s contended path).
public final class PthreadLocked<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()

    public init(_ value: Value) { self.value = value }

    public func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

/// Held while a child is spawned (and, by the terminal client's tests, while
/// its pipes are made), so that no child inherits another test's pipe: tmux's
/// server in particular would keep it open, and its reader would never end.
public let spawnLock = NSLock()

/// Starts `p` under `spawnLock`.
public func spawn(_ p: Process) throws {
    spawnLock.lock()
    defer { spawnLock.unlock() }
    try p.run()
}
