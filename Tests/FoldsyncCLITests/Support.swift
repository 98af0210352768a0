import FoldTestSupport
import Foundation
import Synchronization
import Testing

/// The package's build products: the tests run the real binaries (the
/// daemon through FoldTestSupport's `DaemonProcess`).
enum Build {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static var client: String { root.appendingPathComponent(".build/debug/foldsync").path }
}

/// A fresh temporary directory per test.
func temporaryDirectory() throws -> URL {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("foldsync-cli-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    return dir
}

/// The outcome of one `foldsync` run.
struct Run {
    var status: Int32
    var stdout: String
    var stderr: String
}

/// Runs the real `foldsync` with `args`, optional stdin, bounded by `timeout`.
@discardableResult
func foldsync(_ args: [String], stdin: String? = nil, environment: [String: String] = [:], timeout: Double = 20) throws -> Run {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: Build.client)
    p.arguments = args
    var env = ProcessInfo.processInfo.environment
    env["FOLDSYNC_URL"] = nil
    env["FOLDSYNC_TOKEN"] = nil
    for (k, v) in environment { env[k] = v }
    p.environment = env
    spawnLock.lock()
    let out = Pipe(), err = Pipe(), input = Pipe()
    p.standardOutput = out
    p.standardError = err
    p.standardInput = input
    do {
        try p.run()
    } catch {
        spawnLock.unlock()
        throw error
    }
    spawnLock.unlock()
    if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
    try? input.fileHandleForWriting.close()
    // Read both pipes while waiting, so a full pipe never blocks the child.
    // Threads of their own: on the global queue (as wide as the cores) a
    // run that lasts, read by two blocked workers, would starve the reads
    // of every other test's runs.
    let group = DispatchGroup()
    let outBox = DataBox(), errBox = DataBox()
    for (pipe, box) in [(out, outBox), (err, errBox)] {
        group.enter()
        Thread {
            box.set(pipe.fileHandleForReading.readDataToEndOfFile())
            group.leave()
        }.start()
    }
    // Wait for the process itself; then for its output (bounded: a process
    // spawned elsewhere at the same moment may hold a copy of the pipe).
    guard eventually(timeout: timeout, { !p.isRunning }) else {
        p.terminate()
        throw HarnessError("foldsync \(args.joined(separator: " ")) did not finish within \(timeout)s")
    }
    _ = group.wait(timeout: .now() + 2)
    return Run(status: p.terminationStatus, stdout: String(decoding: outBox.get(), as: UTF8.self),
               stderr: String(decoding: errBox.get(), as: UTF8.self))
}

final class DataBox: Sendable {
    private let data = Mutex(Data())
    func set(_ d: Data) { data.withLock { $0 = d } }
    func get() -> Data { data.withLock { $0 } }
}

/// `foldsync show --json` parsed: the board's state.
func boardState(_ d: DaemonProcess, board: String = "default") throws -> [String: Any] {
    let r = try foldsync(["show", "--json", "--url", d.url, "--board", board])
    guard r.status == 0, let obj = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any],
          let state = obj["state"] as? [String: Any] else {
        throw HarnessError("show --json failed: \(r.status) \(r.stderr)")
    }
    return state
}

func sections(_ state: [String: Any]) -> [[String: Any]] { state["sections"] as? [[String: Any]] ?? [] }

func expanded(_ state: [String: Any]) -> [String] {
    sections(state).filter { $0["expanded"] as? Bool == true }.compactMap { $0["id"] as? String }
}

/// `GET path` on 127.0.0.1:port over a plain socket (HTTP/1.0, so the
/// server closes when done); the body, or nil.
func httpGet(port: Int, _ path: String) -> String? {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var timeout = timeval(tv_sec: 5, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    var addr = sockaddr_in()
    addr.sin_family = sa_family_t(AF_INET)
    addr.sin_addr.s_addr = inet_addr("127.0.0.1")
    addr.sin_port = UInt16(port).bigEndian
    let ok = withUnsafePointer(to: &addr) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard ok == 0 else { return nil }
    let request = Array("GET \(path) HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n".utf8)
    guard write(fd, request, request.count) == request.count else { return nil }
    var response: [UInt8] = []
    var buf = [UInt8](repeating: 0, count: 16384)
    while true {
        let n = read(fd, &buf, buf.count)
        if n <= 0 { break }
        response += buf[0..<n]
    }
    let text = String(decoding: response, as: UTF8.self)
    guard let split = text.range(of: "\r\n\r\n") else { return nil }
    return String(text[split.upperBound...])
}

/// A counter's value from the daemon's /metrics.
func metric(_ d: DaemonProcess, _ name: String) -> Int? {
    guard let body = httpGet(port: d.port, "/metrics") else { return nil }
    for line in body.split(separator: "\n") where line.hasPrefix(name + " ") {
        return Int(Double(line.split(separator: " ").last ?? "") ?? -1)
    }
    return nil
}
