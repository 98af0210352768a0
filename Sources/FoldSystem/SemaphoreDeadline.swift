import Dispatch

extension DispatchSemaphore {
    /// Waits until `deadline` at the latest (the monotonic clock a
    /// `Service`'s stop is given); false when it passed first.
    public func wait(until deadline: ContinuousClock.Instant) -> Bool {
        let left = ContinuousClock.now.duration(to: deadline)
        let ns = max(0, left.components.seconds * 1_000_000_000 + left.components.attoseconds / 1_000_000_000)
        return wait(timeout: .now() + .nanoseconds(Int(ns))) == .success
    }
}
