import FoldSystem
import Foundation
import Testing

/// The group's order and its escalation, with services that record what was
/// asked of them: no thread, no socket.
@Suite struct ServiceGroupTests {
    final class Journal: @unchecked Sendable {
        private let lock = NSLock()
        private var lines: [String] = []
        func add(_ line: String) { lock.withLock { lines.append(line) } }
        var all: [String] { lock.withLock { lines } }
    }

    struct Refused: Error {}

    final class Recording: Service {
        let name: String
        let journal: Journal
        var failsToStart = false
        /// How long its stop takes, whatever the deadline.
        var stopTakes: Duration = .zero
        init(_ name: String, _ journal: Journal) {
            self.name = name
            self.journal = journal
        }
        func start() throws {
            if failsToStart {
                journal.add("start \(name) failed")
                throw Refused()
            }
            journal.add("start \(name)")
        }
        func stop(deadline: ContinuousClock.Instant) -> Bool {
            journal.add("stop \(name)")
            let done = ContinuousClock.now + stopTakes
            guard done > deadline else { return true }
            Thread.sleep(forTimeInterval: max(0, (deadline - ContinuousClock.now).seconds))
            return false
        }
    }

    @Test func startsInOrderAndStopsInReverse() throws {
        let journal = Journal()
        let group = ServiceGroup(["a", "b", "c"].map { .init(Recording($0, journal), stopWithin: .seconds(1)) })
        #expect(group.names == ["a", "b", "c"])
        try group.start()
        #expect(journal.all == ["start a", "start b", "start c"])
        #expect(group.stop() == [])
        #expect(journal.all == ["start a", "start b", "start c", "stop c", "stop b", "stop a"])
        #expect(group.stop() == [], "a second stop does nothing")
        #expect(journal.all.count == 6)
    }

    @Test func aFailedStartStopsWhatStartedAndStartsNothingAfter() {
        let journal = Journal()
        let failing = Recording("b", journal)
        failing.failsToStart = true
        let group = ServiceGroup([Recording("a", journal), failing, Recording("c", journal)].map { .init($0, stopWithin: .seconds(1)) })
        #expect {
            try group.start()
        } throws: { error in
            (error as? ServiceGroup.StartError)?.service == "b" && (error as? ServiceGroup.StartError)?.underlying is Refused
        }
        #expect(journal.all == ["start a", "start b failed", "stop a"])
        #expect(group.stop() == [], "nothing is left running")
        #expect(journal.all.count == 3)
    }

    @Test func aServiceStillRunningAtItsDeadlineIsNamedAndTheRestStopAllTheSame() throws {
        let journal = Journal()
        let stuck = Recording("stuck", journal)
        stuck.stopTakes = .seconds(3600)
        let group = ServiceGroup([
            .init(Recording("first", journal), stopWithin: .seconds(1)),
            .init(stuck, stopWithin: .milliseconds(200)),
            .init(Recording("last", journal), stopWithin: .seconds(1)),
        ])
        try group.start()
        let began = ContinuousClock.now
        #expect(group.stop() == ["stuck"])
        let took = ContinuousClock.now - began
        #expect(journal.all.suffix(3) == ["stop last", "stop stuck", "stop first"])
        #expect(took >= .milliseconds(200), "the stuck one had its own time")
        #expect(took < .seconds(10), "and no more: \(took)")
    }

    @Test func aDeadlineOnTheMonotonicClockBoundsASemaphoreWait() {
        let never = DispatchSemaphore(value: 0)
        let began = ContinuousClock.now
        #expect(never.wait(until: .now + .milliseconds(100)) == false)
        #expect(ContinuousClock.now - began >= .milliseconds(100))
        #expect(never.wait(until: .now - .seconds(1)) == false, "a deadline past is no wait")
        let given = DispatchSemaphore(value: 0)
        given.signal()
        #expect(given.wait(until: .now + .seconds(5)))
    }
}

extension Duration {
    fileprivate var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
