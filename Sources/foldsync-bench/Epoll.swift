import CBenchLinux
import Glibc

/// One epoll instance, level-triggered. Each registration carries a 64-bit
/// token (the connection's slot, or a reserved token for the timer).
final class Epoll {
    let fd: Int32
    private let events: UnsafeMutablePointer<epoll_event>
    let capacity: Int

    init(capacity: Int = 1024) throws {
        fd = try System.check(epoll_create1(Int32(EPOLL_CLOEXEC)), "epoll_create1")
        self.capacity = capacity
        events = .allocate(capacity: capacity)
    }

    deinit {
        events.deallocate()
        close(fd)
    }

    static let readable = EPOLLIN.rawValue | EPOLLRDHUP.rawValue
    static let writable = EPOLLOUT.rawValue

    func add(_ target: Int32, token: UInt64, events mask: UInt32) throws {
        var ev = epoll_event()
        ev.events = mask
        ev.data.u64 = token
        _ = try System.check(epoll_ctl(fd, EPOLL_CTL_ADD, target, &ev), "epoll_ctl(ADD)")
    }

    func modify(_ target: Int32, token: UInt64, events mask: UInt32) {
        var ev = epoll_event()
        ev.events = mask
        ev.data.u64 = token
        _ = epoll_ctl(fd, EPOLL_CTL_MOD, target, &ev)
    }

    func remove(_ target: Int32) {
        var ev = epoll_event()
        _ = epoll_ctl(fd, EPOLL_CTL_DEL, target, &ev)
    }

    /// Waits up to `timeoutMs` (-1: forever); returns how many events `event(_:)` can read.
    @inline(__always)
    func poll(timeoutMs: Int32) -> Int {
        let n = epoll_wait(fd, events, Int32(capacity), timeoutMs)
        return n < 0 ? 0 : Int(n)
    }

    /// The token and event mask of the `i`th event of the last `poll`.
    @inline(__always)
    func event(_ i: Int) -> (token: UInt64, mask: UInt32) {
        (events[i].data.u64, events[i].events)
    }
}

/// A one-shot CLOCK_MONOTONIC timer armed at an absolute time: paces the publisher.
final class Timer {
    let fd: Int32

    init() throws {
        fd = try System.check(timerfd_create(CLOCK_MONOTONIC, Int32(TFD_NONBLOCK | TFD_CLOEXEC)), "timerfd_create")
    }

    deinit { close(fd) }

    func arm(atNs t: UInt64) {
        var spec = itimerspec()
        spec.it_value.tv_sec = Int(t / 1_000_000_000)
        spec.it_value.tv_nsec = Int(t % 1_000_000_000)
        if spec.it_value.tv_sec == 0 && spec.it_value.tv_nsec == 0 { spec.it_value.tv_nsec = 1 }
        timerfd_settime(fd, Int32(TFD_TIMER_ABSTIME), &spec, nil)
    }

    func disarm() {
        var spec = itimerspec()
        timerfd_settime(fd, 0, &spec, nil)
    }

    /// Clears the expiry count so a level-triggered epoll stops reporting it.
    func drain() {
        var n: UInt64 = 0
        _ = Glibc.read(fd, &n, 8)
    }
}
