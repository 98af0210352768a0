@testable import FoldTransport
import Testing

/// The per-connection queue: FIFO order, counts and bytes through the inline
/// head, the overflow array and its compaction.
@Suite struct FrameQueueTests {
    @Test func keepsOrderCountsAndBytesAcrossCompaction() {
        var q = FrameQueue()
        var model: [Int] = []
        var next = 0
        // Pushes and pops in uneven runs, past the 64-frame compaction point.
        for round in 0..<40 {
            for _ in 0..<(round % 7 + 1) * 11 {
                q.push(OutFrame(Array(repeating: UInt8(next % 251), count: next % 13 + 1)))
                model.append(next)
                next += 1
            }
            for _ in 0..<(round % 5 + 1) * 13 where !model.isEmpty {
                let f = q.pop()
                let expected = model.removeFirst()
                #expect(f?.count == expected % 13 + 1)
                #expect(f?.bytes.first == UInt8(expected % 251))
            }
            // Read first: #expect cannot look into a non-copyable value.
            let (count, bytes, empty, first) = (q.count, q.bytes, q.isEmpty, q.first?.count)
            #expect(count == model.count)
            #expect(bytes == model.reduce(0) { $0 + $1 % 13 + 1 })
            #expect(empty == model.isEmpty)
            #expect(first == model.first.map { $0 % 13 + 1 })
        }
        q.removeAll()
        let (empty, count, bytes, popped) = (q.isEmpty, q.count, q.bytes, q.pop())
        #expect(empty && count == 0 && bytes == 0 && popped == nil)
    }
}

extension FrameQueueTests {
    /// A drained burst gives its ring back; the queue works as before after it.
    @Test func aDrainedBurstStartsAfresh() {
        var q = FrameQueue()
        for round in 0..<3 {
            for i in 0..<(200 + round) { q.push(OutFrame([UInt8(i % 256)])) }
            var seen: [UInt8] = []
            while let f = q.pop() { seen.append(f.bytes[0]) }
            #expect(seen == (0..<(200 + round)).map { UInt8($0 % 256) })
            let (empty, count, bytes) = (q.isEmpty, q.count, q.bytes)
            #expect(empty && count == 0 && bytes == 0)
        }
    }
}

/// Frames are held unmanaged with a count of the queues holding them: a frame
/// lives exactly as long as some queue (or caller) still has it.
@Suite struct FrameHoldingTests {
    @Test func aSharedFrameLivesUntilTheLastQueueLetsGo() {
        weak var watched: OutFrame?
        var a = FrameQueue(), b = FrameQueue(), c = FrameQueue()
        do {
            let f = OutFrame([1, 2, 3])
            watched = f
            a.push(f)
            b.push(f)
            c.push(f)
            c.push(f)
        }
        #expect(watched != nil)
        a.dropFirst()
        #expect(watched != nil)
        b.removeAll()
        #expect(watched != nil)
        c.dropFirst()
        let left = c.firstPayload?.count
        #expect(watched != nil && left == 3)
        let last = c.pop()
        #expect(watched != nil && last?.count == 3)   // the caller holds it now
        _ = last
        let empty = c.isEmpty
        #expect(empty)
    }

    @Test func aQueueThatGoesLetsGoOfItsFrames() {
        weak var watched: OutFrame?
        do {
            var q = FrameQueue()
            let f = OutFrame([9, 9])
            watched = f
            for _ in 0..<20 { q.push(f) }   // past the ring's first growth
            q.dropFirst()
        }
        #expect(watched == nil)
    }

    @Test func aFrameNoQueueHoldsIsFreed() {
        weak var watched: OutFrame?
        var q = FrameQueue()
        do {
            let f = OutFrame([7])
            watched = f
            q.push(f)
        }
        q.removeAll()
        #expect(watched == nil)
    }
}
