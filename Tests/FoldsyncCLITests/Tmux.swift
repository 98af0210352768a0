import FoldTestSupport
import Foundation
import Glibc

/// A private tmux server (its own `-L` socket, never the user's) with one
/// session of a fixed size, running a command in C.UTF-8. If tmux is
/// missing, starting it throws: the terminal tests fail, they do not skip.
final class Tmux {
    let socket = "foldsync-test-\(UUID().uuidString.prefix(8))"
    let width: Int
    let height: Int

    init(width: Int, height: Int, command: String) throws {
        self.width = width
        self.height = height
        try run(["-f", "/dev/null", "new-session", "-d", "-s", "tui", "-x", "\(width)", "-y", "\(height)",
                 "-e", "LANG=C.UTF-8", "-e", "LC_ALL=C.UTF-8", "-e", "TERM=tmux-256color", command])
        try run(["set-option", "-t", "tui", "remain-on-exit", "on"])
    }

    /// Runs `tmux -L SOCKET args...` and returns its stdout. Spawned and
    /// reaped by hand (posix_spawn + waitpid): the tmux client forks the
    /// server, and Foundation's Process could be left waiting on it.
    @discardableResult
    func run(_ args: [String]) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("\(socket)-\(UUID().uuidString).out").path
        defer { unlink(path) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        // The tmux server outlives this call: it must not inherit the pipes
        // of processes other tests are running at the same moment, or their
        // readers would never see end of file. Every other descriptor is
        // closed in the child, and `spawnLock` keeps other tests from
        // opening new pipes in between.
        spawnLock.lock()
        defer { spawnLock.unlock() }
        for fd in Self.openDescriptors() where fd > 2 {
            posix_spawn_file_actions_addclose(&actions, fd)
        }
        let argv = ["tmux", "-L", socket] + args
        var env = ProcessInfo.processInfo.environment
        env["LANG"] = "C.UTF-8"
        env["LC_ALL"] = "C.UTF-8"
        env["TMUX"] = nil
        let envp = env.map { "\($0.key)=\($0.value)" }
        var cArgs = argv.map { strdup($0) } + [nil]
        var cEnv = envp.map { strdup($0) } + [nil]
        defer {
            cArgs.forEach { free($0) }
            cEnv.forEach { free($0) }
        }
        // The calling thread (a test worker) may block signals, and a child
        // inherits the mask: the tmux server would then never see SIGCHLD or
        // SIGTERM, nor exit on kill-server. Start it with a clean slate.
        var attr = posix_spawnattr_t()
        posix_spawnattr_init(&attr)
        defer { posix_spawnattr_destroy(&attr) }
        var empty = sigset_t()
        sigemptyset(&empty)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attr, &empty)
        posix_spawnattr_setsigdefault(&attr, &all)
        posix_spawnattr_setflags(&attr, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid: pid_t = 0
        let rc = posix_spawnp(&pid, "tmux", &actions, &attr, &cArgs, &cEnv)
        guard rc == 0 else { throw HarnessError("cannot run tmux (errno \(rc)): is tmux installed?") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let data = FileManager.default.contents(atPath: path) ?? Data()
        guard status == 0 else {
            throw HarnessError("tmux \(args.first ?? "") failed with status \(status)")
        }
        return String(decoding: data, as: UTF8.self)
    }

    static func openDescriptors() -> [Int32] {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []).compactMap { Int32($0) }
    }

    /// The screen as text, one string per row (trailing blanks trimmed by tmux).
    func screen() -> [String] {
        let text = (try? run(["capture-pane", "-p", "-t", "tui"])) ?? ""
        return text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    func keys(_ keys: String...) throws {
        try run(["send-keys", "-t", "tui"] + keys)
    }

    /// Waits (bounded) until `predicate` holds for the screen; on timeout
    /// the error carries the last screen.
    func waitFor(_ what: String, seconds: Double = 10, _ predicate: ([String]) -> Bool) throws {
        var last: [String] = []
        let ok = eventually(timeout: seconds) {
            last = screen()
            return predicate(last)
        }
        if !ok { throw HarnessError("timeout waiting for \(what); screen:\n" + last.joined(separator: "\n")) }
    }

    func waitFor(text: String, seconds: Double = 10) throws {
        try waitFor("'\(text)'", seconds: seconds) { $0.contains { $0.contains(text) } }
    }

    deinit {
        _ = try? run(["kill-server"])
        // tmux may leave its socket file behind.
        unlink("/tmp/tmux-\(getuid())/\(socket)")
    }
}
