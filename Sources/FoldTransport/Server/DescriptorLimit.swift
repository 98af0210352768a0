import Glibc

/// The process's descriptor limit (RLIMIT_NOFILE), shared by the daemon's
/// transport and the benchmark: both hold one descriptor per connection.
public enum DescriptorLimit {
    /// Lifts the soft limit to the hard one and returns it (capped at 2^20).
    public static func raise() -> Int {
        guard var rl = current() else { return 1024 }
        if rl.rlim_cur < rl.rlim_max {
            var raised = rl
            raised.rlim_cur = rl.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { rl = raised }
        }
        return Int(min(rl.rlim_cur, 1 << 20))
    }

    /// The soft limit now (capped at 2^20).
    public static func soft() -> Int {
        current().map { Int(min($0.rlim_cur, 1 << 20)) } ?? 1024
    }

    /// Sets the soft limit (never above the hard one).
    public static func setSoft(_ n: Int) {
        guard var rl = current() else { return }
        rl.rlim_cur = rlim_t(min(UInt64(max(n, 0)), UInt64(rl.rlim_max)))
        _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &rl)
    }

    private static func current() -> rlimit? {
        var rl = rlimit()
        return getrlimit(Int32(RLIMIT_NOFILE.rawValue), &rl) == 0 ? rl : nil
    }
}
