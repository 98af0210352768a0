import FoldCore

/// An event stream's outgoing side: what the hub queued and lws has not
/// taken yet, and whether the hub wants to hear when it drains (after a
/// resync) or wants the stream ended once it has. Service thread only.
struct StreamOut {
    private(set) var queue: [[UInt8]] = []
    /// Bytes of `queue` not yet written (the head counts from `offset`).
    private(set) var bytes = 0
    private var offset = 0
    /// The hub resynchronised this stream: say when the queue empties.
    var drainWatched = false
    /// End the response once the queue is out.
    var ending = false

    var isEmpty: Bool { queue.isEmpty }

    /// Queues `event` when `bound` admits it (nil: whatever the queue holds).
    mutating func push(_ event: [UInt8], within bound: QueueBound?) -> Bool {
        if let bound, !bound.admits(queuedFrames: queue.count, queuedBytes: bytes, adding: event.count) { return false }
        queue.append(event)
        bytes += event.count
        return true
    }

    /// Drops what is queued (a resync replaces it with a snapshot).
    mutating func discard() {
        queue.removeAll(keepingCapacity: true)
        bytes = 0
        offset = 0
    }

    /// Copies up to `capacity` queued bytes into `into` and returns how many.
    func peek(into out: UnsafeMutablePointer<UInt8>, capacity: Int) -> Int {
        var n = 0
        for (i, event) in queue.enumerated() where n < capacity {
            let from = i == 0 ? offset : 0
            let take = min(event.count - from, capacity - n)
            event.withUnsafeBufferPointer { src in (out + n).update(from: src.baseAddress! + from, count: take) }
            n += take
        }
        return n
    }

    /// `n` bytes from the head were written.
    mutating func consumed(_ n: Int) {
        var left = n
        bytes -= n
        while left > 0, let head = queue.first {
            let rest = head.count - offset
            if left >= rest {
                left -= rest
                queue.removeFirst()
                offset = 0
            } else {
                offset += left
                left = 0
            }
        }
    }
}
