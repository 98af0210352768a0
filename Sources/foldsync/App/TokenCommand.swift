import FoldSystem
import Glibc

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
        let child: ChildProcess
        do throws(SystemError) {
            child = try ChildProcess.spawn("/bin/sh", ["-c", command])
        } catch {
            return .failure(Failure("--token-command could not start: \(error)"))
        }
        let deadline = now() + timeout
        // Both pipes are read while it runs, so a chatty command cannot fill one and stall.
        var output = PipeReader(child.stdout), errors = PipeReader(child.stderr)
        var status: Int32?
        while true {
            if status == nil { status = child.exitStatus() }
            if status != nil && output.ended && errors.ended { break }
            // Once it exited, a descendant holding its pipes gets a second more.
            let left = deadline + (status == nil ? 0 : 1) - now()
            if left <= 0 {
                guard status != nil else {
                    child.terminate()
                    output.close()
                    errors.close()
                    return .failure(Failure("--token-command took longer than \(Int(timeout)) s"))
                }
                break
            }
            // While it runs, it is looked at every 5 ms.
            PipeReader.readAvailable(&output, &errors, waitingMs: status == nil ? min(5, Int32(left * 1000) + 1) : Int32(left * 1000) + 1)
        }
        let stderr = String(decoding: errors.bytes, as: UTF8.self)
        // Output still open at the end (a descendant kept it) counts as none.
        let stdout = output.ended ? output.bytes : []
        output.close()
        errors.close()
        guard status == 0 else {
            let why = stderr.split(separator: "\n").first.map { ": \($0.prefix(200))" } ?? ""
            return .failure(Failure("--token-command exited with \(status ?? -1)\(why)"))
        }
        let token = trimmed(String(decoding: stdout, as: UTF8.self))
        guard !token.isEmpty, !token.contains(where: { $0.isNewline || $0 == " " }) else {
            return .failure(Failure("--token-command printed no token (one line, no spaces, expected)"))
        }
        return .success(token)
    }

    /// Without leading and trailing white space and line ends.
    static func trimmed(_ s: String) -> String {
        String(s.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
    }

    static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}

/// One end of a child's output pipe, read as bytes arrive until end of file.
struct PipeReader {
    private(set) var fd: Int32
    private(set) var bytes: [UInt8] = []
    private(set) var ended = false

    init(_ fd: Int32) { self.fd = fd }

    /// Waits up to `waitingMs` for either pipe to have something, then reads what is there.
    static func readAvailable(_ a: inout PipeReader, _ b: inout PipeReader, waitingMs: Int32) {
        var fds = [a, b].map { pollfd(fd: $0.ended ? -1 : $0.fd, events: Int16(POLLIN), revents: 0) }
        guard (try? systemCall("poll") { poll(&fds, nfds_t(fds.count), waitingMs) }) ?? 0 > 0 else { return }
        if fds[0].revents != 0 { a.readOnce() }
        if fds[1].revents != 0 { b.readOnce() }
    }

    /// One read: its bytes, or the end (end of file or an error).
    private mutating func readOnce() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = (try? systemCall("read") { read(fd, &buffer, buffer.count) }) ?? 0
        if n > 0 { bytes += buffer[0..<n] } else { ended = true }
    }

    mutating func close() {
        guard fd >= 0 else { return }
        Glibc.close(fd)
        fd = -1
        ended = true
    }
}

/// A child process started with `posix_spawn`, as Foundation's `Process`
/// starts one: in a process group of its own, the environment inherited,
/// stdin from /dev/null, stdout and stderr into pipes, and no other
/// descriptor of this process. SIGINT, SIGTERM, SIGHUP and SIGPIPE, which
/// the client ignores, are the default again in the child, so a command
/// past its time ends on SIGTERM (SIGKILL a second later).
struct ChildProcess {
    let pid: pid_t
    /// The read ends of its stdout and stderr.
    let stdout: Int32
    let stderr: Int32

    static func spawn(_ path: String, _ arguments: [String]) throws(SystemError) -> ChildProcess {
        var out: [Int32] = [-1, -1], err: [Int32] = [-1, -1]
        try systemCall("pipe") { pipe(&out) }
        do throws(SystemError) {
            try systemCall("pipe") { pipe(&err) }
        } catch {
            out.forEach { Glibc.close($0) }
            throw error
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, out[1], 1)
        posix_spawn_file_actions_adddup2(&actions, err[1], 2)
        // Every other descriptor (the pipes' own among them) stays behind.
        for fd in openDescriptors() where fd > 2 { posix_spawn_file_actions_addclose(&actions, fd) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for sig in [SIGINT, SIGTERM, SIGHUP, SIGPIPE] { sigaddset(&defaults, sig) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF))
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid = pid_t()
        let result = posix_spawn(&pid, path, &actions, &attributes, argv, environ)
        Glibc.close(out[1])
        Glibc.close(err[1])
        guard result == 0 else {
            Glibc.close(out[0])
            Glibc.close(err[0])
            throw SystemError(call: "posix_spawn \(path)", errno: result)
        }
        return ChildProcess(pid: pid, stdout: out[0], stderr: err[0])
    }

    /// The descriptors open now, from /proc/self/fd (none known without /proc).
    static func openDescriptors() -> [Int32] {
        guard let dir = opendir("/proc/self/fd") else { return [] }
        defer { closedir(dir) }
        let own = dirfd(dir)
        var fds: [Int32] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if let fd = Int32(name), fd != own { fds.append(fd) }
        }
        return fds
    }

    /// Its status once it has exited (the exit code, or the signal that
    /// ended it, as `Process.terminationStatus`); nil while it runs.
    func exitStatus() -> Int32? {
        var raw: Int32 = 0
        guard let reaped = try? systemCall("waitpid", { waitpid(pid, &raw, WNOHANG) }), reaped == pid else { return nil }
        return Self.status(raw)
    }

    static func status(_ raw: Int32) -> Int32 {
        raw & 0x7f == 0 ? (raw >> 8) & 0xff : raw & 0x7f
    }

    /// SIGTERM to its process group (what the shell started too), then
    /// SIGKILL after a second; the child is reaped.
    func terminate() {
        kill(-pid, SIGTERM)
        let end = TokenCommand.now() + 1
        while TokenCommand.now() < end {
            if exitStatus() != nil { return }
            usleep(5_000)
        }
        kill(-pid, SIGKILL)
        var raw: Int32 = 0
        _ = try? systemCall("waitpid") { waitpid(pid, &raw, 0) }
    }
}
