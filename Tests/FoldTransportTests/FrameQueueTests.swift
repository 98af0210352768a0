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
            #expect(q.count == model.count)
            #expect(q.bytes == model.reduce(0) { $0 + $1 % 13 + 1 })
            #expect(q.isEmpty == model.isEmpty)
            #expect(q.first?.count == model.first.map { $0 % 13 + 1 })
        }
        q.removeAll()
        #expect(q.isEmpty && q.count == 0 && q.bytes == 0 && q.pop() == nil)
    }
}
