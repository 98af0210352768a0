import Foundation
import Glibc
import Testing
import FoldSystem

/// What the reaper is handed is released on its own thread, not the caller's,
/// and nothing handed to it outlives `stop`.
@Suite struct ReaperTests {
    final class Tracked: Sendable {
        let onDeinit: @Sendable (Bool) -> Void
        init(_ onDeinit: @escaping @Sendable (Bool) -> Void) { self.onDeinit = onDeinit }
        let owner = pthread_self()
        deinit { onDeinit(pthread_equal(pthread_self(), owner) == 0) }
    }

    @Test func valuesAreReleasedOnTheReapersThreadAndAllBeforeStopReturns() {
        let released = Locked((count: 0, onReaper: 0))
        let reaper = Reaper(name: "test-reaper")
        reaper.start()
        for _ in 0..<1_000 {
            reaper.drop(Tracked { onReaper in released.withLock { $0.count += 1; if onReaper { $0.onReaper += 1 } } })
        }
        #expect(reaper.stop(deadline: .now + .seconds(10)))
        let seen = released.withLock { $0 }
        #expect(seen.count == 1_000)
        #expect(seen.onReaper == 1_000)
        // Once stopped, a value is released where it is dropped.
        reaper.drop(Tracked { _ in released.withLock { $0.count += 1 } })
        #expect(released.withLock { $0.count } == 1_001)
    }
}
