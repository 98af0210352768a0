import Glibc

/// A detached POSIX thread running one closure: every thread of the daemon
/// and the terminal client (the service thread, the committer, the timers,
/// the terminal's reader...). It names itself for the system first
/// (`ThreadName`) when given a name; an unnamed one keeps the name of the
/// thread that started it (the kernel copies it: the main thread's is the
/// program's).
///
/// `stackSize`: bytes of stack, else pthread's default (RLIMIT_STACK's
/// soft limit, 8 MiB as Debian ships it).
public enum SystemThread {
    private final class Start {
        let name: String?
        let body: () -> Void
        init(name: String?, body: @escaping () -> Void) {
            self.name = name
            self.body = body
        }
    }

    /// Starts `body` on a new thread; the thread ends when it returns. A
    /// process that cannot start a thread (EAGAIN: out of memory or past
    /// its thread limit) cannot do its work: it stops with why.
    public static func start(name: String? = nil, stackSize: Int? = nil, _ body: @escaping @Sendable () -> Void) {
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        if let stackSize { pthread_attr_setstacksize(&attributes, stackSize) }
        let start = Unmanaged.passRetained(Start(name: name, body: body)).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(&thread, &attributes, { context in
            let start = Unmanaged<Start>.fromOpaque(context!).takeRetainedValue()
            if let name = start.name { ThreadName.set(name) }
            start.body()
            return nil
        }, start)
        guard result == 0 else {
            Unmanaged<Start>.fromOpaque(start).release()
            fatalError("cannot start the thread \(name ?? "(unnamed)"): \(String(cString: strerror(result))) (pthread_create \(result))")
        }
    }
}
