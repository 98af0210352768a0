/// A FIFO of shared frames with O(1) push and pop, counting the bytes it holds.
///
/// The oldest frame is kept inline: most connections hold at most one frame
/// between writes, and reaching into an array's heap buffer would cost one
/// more cache miss per delivery at 10,000 connections.
struct FrameQueue {
    /// Nil exactly when the queue is empty (then `rest` is empty too).
    private var head: OutFrame?
    private var rest: [OutFrame] = []
    private var restHead = 0
    private(set) var bytes = 0
    /// Kept here, not derived from `rest`: reading that array's length is
    /// one more cache miss per subscriber in every fan-out's bound check.
    private(set) var count = 0

    var isEmpty: Bool { head == nil }
    var first: OutFrame? { head }

    mutating func push(_ f: OutFrame) {
        bytes += f.count
        count += 1
        if head == nil { head = f } else { rest.append(f) }
    }

    mutating func pop() -> OutFrame? {
        guard let f = head else { return nil }
        bytes -= f.count
        count -= 1
        if restHead < rest.count {
            head = rest[restHead]
            restHead += 1
            if restHead == rest.count {
                rest.removeAll(keepingCapacity: rest.capacity <= 64)
                restHead = 0
            } else if restHead >= 64 && restHead * 2 >= rest.count {
                rest.removeFirst(restHead)
                restHead = 0
            }
        } else {
            head = nil
        }
        return f
    }

    mutating func removeAll() {
        head = nil
        rest.removeAll()
        restHead = 0
        bytes = 0
        count = 0
    }
}
