import FoldCore
import FoldSystem
import Glibc

/// One daemon per SQLite store: an exclusive `flock` on the store's own
/// file, taken as soon as SQLite has opened it and before anything is read
/// or written, and kept until the store closes or the process ends.
///
/// Why `flock` on the file itself: the lock belongs to the inode, so every
/// path to it (a symlink, a relative path, a bind mount) meets the same
/// lock; the kernel drops it with the process (`kill -9` leaves nothing to
/// clean up); and SQLite locks with `fcntl`, which on Linux never conflicts
/// with `flock`, so readers (`foldsyncd backup`, `sqlite3 x.db .dump`) work
/// beside the holder. On NFS the kernel emulates `flock` with `fcntl`, which
/// would lock readers out: SQLite stores do not belong on NFS anyway.
public final class SQLiteStoreHold: @unchecked Sendable {
    private var fd: Int32

    /// Takes the hold on `file` (the store's file as SQLite names it), or
    /// throws `heldElsewhere` naming the holder's pid when the kernel tells it.
    /// `shown` is the path the user gave, for the message.
    init(file: String, shown: String) throws(StoreError) {
        do {
            fd = try systemCall("open \(file)") { open(file, O_RDONLY | O_CLOEXEC) }
        } catch {
            throw StoreError("cannot open \(file) to hold it: \(error)")
        }
        let fd = fd
        let held: Int32?
        do {
            held = try nonBlockingCall("flock") { flock(fd, LOCK_EX | LOCK_NB) }
        } catch {
            Glibc.close(fd)
            throw StoreError("cannot hold \(file): \(error)")
        }
        if held == nil {
            Glibc.close(fd)
            let name = shown == file ? file : "\(shown) (\(file))"
            let pid = Self.holder(of: file).map { " (pid \($0))" } ?? ""
            var error = StoreError("the store \(name) is held by another foldsyncd\(pid): one SQLite store serves one daemon; stop that one, or give this one another --db")
            error.heldElsewhere = true
            throw error
        }
    }

    deinit { release() }

    /// Lets the store go (the process's end does the same).
    func release() {
        guard fd >= 0 else { return }
        Glibc.close(fd)
        fd = -1
    }

    /// The pid of the process holding `path`'s file (any path to it), from
    /// the kernel's lock table; nil when it is not held or not known. Takes nothing.
    public static func holder(of path: String) -> Int32? {
        var st = stat()
        guard stat(path, &st) == 0, let table = fopen("/proc/locks", "r") else { return nil }
        defer { fclose(table) }
        let dev = UInt64(st.st_dev)
        let major = ((dev >> 8) & 0xfff) | ((dev >> 32) & ~0xfff)
        let minor = (dev & 0xff) | ((dev >> 12) & ~0xff)
        let file = "\(String(major, radix: 16, uppercase: false).leftPadded(2)):\(String(minor, radix: 16).leftPadded(2)):\(st.st_ino)"
        var line: UnsafeMutablePointer<CChar>?
        var capacity = 0
        defer { free(line) }
        while getline(&line, &capacity, table) > 0, let line {
            // "1: FLOCK  ADVISORY  WRITE 1234 fe:00:16220219 0 EOF"; waiters have "->" before FLOCK.
            let fields = String(cString: line).split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 6, fields[1] == "FLOCK", fields[3] == "WRITE", fields[5] == file else { continue }
            return Int32(fields[4])
        }
        return nil
    }
}

extension String {
    fileprivate func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
