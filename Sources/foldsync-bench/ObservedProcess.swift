import Glibc

/// The server under test as seen through /proc (its CPU time and memory),
/// when it runs on this machine. Not the tests' DaemonProcess, which launches one.
struct ObservedProcess {
    let pid: Int32

    /// utime + stime in seconds.
    func cpuSeconds() -> Double? {
        guard let stat = Self.readText("/proc/\(pid)/stat"), let close = stat.lastIndex(of: ")") else { return nil }
        // After "pid (comm) ": field 3 is state; utime and stime are fields 14 and 15.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let u = Double(fields[11]), let s = Double(fields[12]) else { return nil }
        return (u + s) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// Seconds core `n` was busy since boot (user, nice, system, irq and
    /// softirq from /proc/stat): whatever ran there, the server's threads and
    /// the kernel's deferred network work (ksoftirqd) alike, which the
    /// server's own utime + stime leaves out.
    static func coreBusySeconds(_ n: Int) -> Double? {
        guard let stat = readText("/proc/stat"),
              let line = stat.split(separator: "\n").first(where: { $0.hasPrefix("cpu\(n) ") }) else { return nil }
        let f = line.split(separator: " ").dropFirst().compactMap { Double($0) }
        guard f.count >= 7 else { return nil }
        return (f[0] + f[1] + f[2] + f[5] + f[6]) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// VmRSS and VmHWM in MiB.
    func memoryMiB() -> (rss: Double, peak: Double)? {
        guard let status = Self.readText("/proc/\(pid)/status") else { return nil }
        func kib(_ key: String) -> Double? {
            guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(key) }) else { return nil }
            return line.split(separator: " ").dropFirst().first.flatMap { Double($0) }
        }
        guard let rss = kib("VmRSS:") else { return nil }
        return (rss / 1024, (kib("VmHWM:") ?? rss) / 1024)
    }

    var threadCount: Int? {
        guard let status = Self.readText("/proc/\(pid)/status"),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Threads:") }) else { return nil }
        return Int(line.split(separator: "\t").last ?? "")
    }

    /// The process with a socket listening on `port` (IPv4 or IPv6): the
    /// listening socket's inode from /proc/net/tcp, then whose fd links to it.
    static func find(listeningOn port: Int) -> ObservedProcess? {
        var inodes: Set<String> = []
        let hex = String(port, radix: 16, uppercase: true)
        let hexPort = ":" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
            guard let text = readText(table) else { continue }
            for line in text.split(separator: "\n").dropFirst() {
                let f = line.split(separator: " ")
                // local_address rem_address st ... inode is field 9.
                guard f.count > 9, f[1].hasSuffix(hexPort), f[3] == "0A" else { continue }
                inodes.insert(String(f[9]))
            }
        }
        guard !inodes.isEmpty, let proc = opendir("/proc") else { return nil }
        defer { closedir(proc) }
        let me = getpid()
        while let entry = readdir(proc) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard let pid = Int32(name), pid != me, let fds = opendir("/proc/\(pid)/fd") else { continue }
            defer { closedir(fds) }
            var link = [CChar](repeating: 0, count: 64)
            while let fd = readdir(fds) {
                let fdName = withUnsafeBytes(of: fd.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                let n = readlink("/proc/\(pid)/fd/\(fdName)", &link, link.count - 1)
                guard n > 8 else { continue }
                let target = String(decoding: link[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
                if target.hasPrefix("socket:["), inodes.contains(String(target.dropFirst(8).dropLast())) {
                    return ObservedProcess(pid: pid)
                }
            }
        }
        return nil
    }

    static func readText(_ path: String) -> String? {
        guard let f = fopen(path, "r") else { return nil }
        defer { fclose(f) }
        var out: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = fread(&buf, 1, buf.count, f)
            if n <= 0 { break }
            out += buf[0..<n]
        }
        return String(decoding: out, as: UTF8.self)
    }
}
