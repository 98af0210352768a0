import FoldMailbox
import FoldSystem
import Foundation
import Testing

/// The mailbox without an event loop: events posted from many threads come
/// out once each, in each poster's order, and every post wakes the owner.
@Suite struct MailboxTests {
    @Test func postsFromManyThreadsAreDrainedOnceEachInTheirOrder() {
        let wakes = Locked(0)
        let waker = Waker()
        waker.attach { wakes.withLock { $0 += 1 } }
        let box = Mailbox<(thread: Int, n: Int)>(waker: waker)
        let threads = 4, each = 500
        DispatchQueue.concurrentPerform(iterations: threads) { t in
            for n in 0..<each { box.post((t, n)) }
        }
        let drained = box.drain()
        #expect(drained.count == threads * each)
        for t in 0..<threads {
            #expect(drained.filter { $0.thread == t }.map(\.n) == Array(0..<each), "thread \(t) out of order")
        }
        #expect(wakes.withLock { $0 } == threads * each)
        #expect(box.drain().isEmpty, "a drain takes everything")
    }
}
