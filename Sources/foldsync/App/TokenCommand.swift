import FoldSystem
import Foundation

/// `--token-command CMD`: a credential plugin, as kubectl has them. `sh -c
/// CMD` prints a token (a JWT from the organisation's sign-in) on stdout;
/// it runs before every connection and whenever the daemon says
/// `authExpiring`, so a watch or the live view outlives any one token. Runs
/// on the service thread, bounded: a hung command cannot hold the client.
enum TokenCommand {
    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ d: String) { description = d }
    }

    static let timeout = 10.0

    /// The token, or why there is none (the command's failure, never its output).
    static func run(_ command: String) -> Result<String, Failure> {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", command]
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        p.standardInput = FileHandle.nullDevice
        do { try p.run() } catch { return .failure(Failure("--token-command could not start: \(error)")) }
        // Read while it runs, so a chatty command cannot fill the pipe and stall.
        let collected = LockedData()
        let reader = Thread { collected.set(out.fileHandleForReading.readDataToEndOfFile()) }
        reader.start()
        let deadline = Date().addingTimeInterval(timeout)
        while p.isRunning && Date() < deadline { usleep(5_000) }
        if p.isRunning {
            p.terminate()
            p.waitUntilExit()
            return .failure(Failure("--token-command took longer than \(Int(timeout)) s"))
        }
        p.waitUntilExit()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        while !collected.done && Date() < deadline.addingTimeInterval(1) { usleep(1_000) }
        guard p.terminationStatus == 0 else {
            let why = stderr.split(separator: "\n").first.map { ": \($0.prefix(200))" } ?? ""
            return .failure(Failure("--token-command exited with \(p.terminationStatus)\(why)"))
        }
        let token = String(decoding: collected.data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !token.isEmpty, !token.contains(where: { $0.isNewline || $0 == " " }) else {
            return .failure(Failure("--token-command printed no token (one line, no spaces, expected)"))
        }
        return .success(token)
    }
}

/// The command's output, handed from its reader thread.
private final class LockedData: Sendable {
    private let output = Locked<Data?>(nil)
    func set(_ d: Data) { output.withLock { $0 = d } }
    var data: Data { output.withLock { $0 ?? Data() } }
    var done: Bool { output.withLock { $0 != nil } }
}
