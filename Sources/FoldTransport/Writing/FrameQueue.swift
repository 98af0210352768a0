/// A FIFO of shared frames with O(1) push and pop, counting the bytes it holds.
///
/// The oldest frame is kept inline: most connections hold at most one frame
/// between writes, and reaching into a heap buffer would cost one more cache
/// miss per delivery at 10,000 connections. The rest sit in a ring of its
/// own, grown by doubling: no copy-on-write check per push, as an array has.
///
/// Frames are held unmanaged and counted in `OutFrame.holders`: one atomic
/// retain per frame, not one per subscriber (a fan-out to 1,000 connections
/// at 1,000 changes a second was 8 % of the core in retains and releases).
/// Service thread only, as every frame and queue is.
struct FrameQueue: ~Copyable {
    /// Nil exactly when the queue is empty (then the ring is empty too).
    private var head: Unmanaged<OutFrame>?
    private var ring: UnsafeMutablePointer<Unmanaged<OutFrame>>?
    private var capacity = 0
    private var start = 0
    private var ringCount = 0
    private(set) var bytes = 0
    private(set) var count = 0

    init() {}

    deinit {
        var h = head
        var i = 0
        while let u = h {
            OutFrame.letGo(u)
            h = i < ringCount ? ring![(start + i) & (capacity - 1)] : nil
            i += 1
        }
        ring?.deallocate()
    }

    var isEmpty: Bool { head == nil }
    var first: OutFrame? { head?.takeUnretainedValue() }

    /// The oldest frame's payload and length, valid until it is dropped:
    /// read without a retain, for the writer's copy loops.
    var firstPayload: (bytes: UnsafeMutablePointer<UInt8>, count: Int)? {
        head?._withUnsafeGuaranteedRef { ($0.payload, $0.count) }
    }

    mutating func push(_ f: OutFrame) {
        bytes += f.count
        count += 1
        let reference = f.hold()
        guard head != nil else { return head = reference }
        if ringCount == capacity { grow() }
        ring![(start + ringCount) & (capacity - 1)] = reference
        ringCount += 1
    }

    /// Removes the oldest frame and returns it.
    @discardableResult
    mutating func pop() -> OutFrame? {
        guard let f = first else { return nil }
        dropFirst()
        return f
    }

    /// Removes the oldest frame (the writer's path: nothing to hand back).
    mutating func dropFirst() {
        guard let h = head else { return }
        bytes -= h._withUnsafeGuaranteedRef { $0.count }
        count -= 1
        if ringCount > 0 {
            head = ring![start]
            start = (start + 1) & (capacity - 1)
            ringCount -= 1
        } else {
            head = nil
            // A drained burst gives its ring back: a connection that once lagged keeps no more than a small one.
            if capacity > 64 {
                ring?.deallocate()
                ring = nil
                capacity = 0
                start = 0
            }
        }
        OutFrame.letGo(h)
    }

    /// Drops every frame and the ring's memory.
    mutating func removeAll() {
        while head != nil { dropFirst() }
        ring?.deallocate()
        ring = nil
        capacity = 0
        start = 0
    }

    private mutating func grow() {
        let bigger = max(capacity * 2, 8)
        let new = UnsafeMutablePointer<Unmanaged<OutFrame>>.allocate(capacity: bigger)
        for i in 0..<ringCount { new[i] = ring![(start + i) & (capacity - 1)] }
        ring?.deallocate()
        ring = new
        capacity = bigger
        start = 0
    }
}
