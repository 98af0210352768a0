import Glibc

/// Names the calling thread for the system (`top -H`, /proc/PID/task/TID/comm):
/// every `SystemThread` given a name calls it first. The kernel keeps 15
/// bytes; a longer name is cut to them. Written through /proc/thread-self/comm (`pthread_setname_np` is a GNU extension Swift's
/// Glibc module does not offer); a failure only leaves the name as it was.
public enum ThreadName {
    public static func set(_ name: String) {
        let fd = open("/proc/thread-self/comm", O_WRONLY)
        guard fd >= 0 else { return }
        defer { close(fd) }
        let bytes = Array(name.utf8.prefix(15))
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    }
}
