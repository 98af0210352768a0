import Glibc

/// A value behind a pthread mutex, for the few places threads meet (the
/// mailbox, the waker, the timer clock, the committer's and reader's jobs).
///
/// Not `Synchronization.Mutex`: its contended path runs in runtime code that
/// ThreadSanitizer does not see, so every contended hand-over is reported as
/// a race; pthread mutexes are understood by the sanitizer.
public final class Locked<Value: Sendable>: @unchecked Sendable {
    private var value: Value
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    public init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    public func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
