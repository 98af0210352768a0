/// A FIFO of shared frames with O(1) push and pop, counting the bytes it holds.
struct FrameQueue {
    private var frames: [OutFrame] = []
    private var head = 0
    private(set) var bytes = 0

    var count: Int { frames.count - head }
    var isEmpty: Bool { head == frames.count }
    var first: OutFrame? { isEmpty ? nil : frames[head] }

    mutating func push(_ f: OutFrame) {
        frames.append(f)
        bytes += f.count
    }

    mutating func pop() -> OutFrame? {
        guard head < frames.count else { return nil }
        let f = frames[head]
        head += 1
        bytes -= f.count
        if head == frames.count {
            frames.removeAll(keepingCapacity: frames.capacity <= 64)
            head = 0
        } else if head >= 64 && head * 2 >= frames.count {
            frames.removeFirst(head)
            head = 0
        }
        return f
    }

    mutating func removeAll() {
        frames.removeAll()
        head = 0
        bytes = 0
    }
}
