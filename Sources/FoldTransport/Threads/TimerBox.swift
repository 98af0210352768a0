import CLibWebSockets

/// A one-shot callback on the service thread, on lws' own timer list, so
/// that nothing ticks per connection.
final class TimerBox {
    let body: () -> Void
    let node: UnsafeMutablePointer<fs_timer_t>

    init(_ body: @escaping () -> Void) {
        self.body = body
        node = .allocate(capacity: 1)
        node.initialize(to: fs_timer_t())
    }

    deinit { node.deallocate() }
}

/// The C-side timer callback: recovers the box, releases it, runs the body.
func timerFired(_ sul: UnsafeMutablePointer<lws_sorted_usec_list_t>?) {
    guard let sul, let owner = fs_timer_from(sul).pointee.owner else { return }
    let box = Unmanaged<TimerBox>.fromOpaque(owner).takeRetainedValue()
    box.body()
}
