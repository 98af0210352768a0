@testable import FoldCore
@testable import FoldHub
import FoldTestSupport
import Testing

/// The hub's deadlines with the driver's wake-up rule (one timer armed for
/// the earliest wake-up asked for; a later request needs no other): random
/// deadlines armed, re-armed and removed on a moved clock are each carried
/// out once, at their time, and the heartbeat re-arms itself for as long as
/// a stream is open.
@Suite struct DeadlineTests {
    /// The driver's side (HubDriver.wake): timers that fire at exactly their
    /// time, and the earliest one armed.
    struct Driver {
        var timers: [Instant] = []
        var armed: Instant?
        mutating func wake(at t: Instant, now: Instant) {
            if let a = armed, a <= t { return }
            armed = t
            timers.append(max(t, now))
        }
    }

    @Test(arguments: 1...20)
    func randomDeadlinesFireOnceAtTheirTime(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        var deadlines = Deadlines()
        var driver = Driver()
        var now: Instant = 1_000
        // What is armed and not yet carried out, and what was carried out when.
        var pending: [Deadline: Instant] = [:]
        var fired = 0
        let names: [Deadline] = (0..<6).map { .stall(UInt64($0)) } + [.heartbeat, .probe, .status, .watchdog]

        func tick() {
            for d in deadlines.expire(at: now) {
                #expect(pending[d] != nil, "seed \(seed): \(d) carried out but not armed")
                if let t = pending[d] { #expect(t == now, "seed \(seed): \(d) due \(t) carried out at \(now)") }
                pending[d] = nil
                fired += 1
            }
            if let next = deadlines.nextWake() { driver.wake(at: next, now: now) }
        }
        for _ in 0..<400 {
            switch rng.next() % 4 {
            case 0, 1:
                let d = names[Int(rng.next() % UInt64(names.count))]
                let t = now + rng.next() % 50
                pending[d] = t
                if let w = deadlines.set(d, at: t) { driver.wake(at: w, now: now) }
            case 2:
                let d = names[Int(rng.next() % UInt64(names.count))]
                pending[d] = nil
                deadlines.remove(d)
            default:
                // The clock moves; every timer due by then fires, in order.
                let until = now + rng.next() % 40
                while let first = driver.timers.min(), first <= until {
                    driver.timers.remove(at: driver.timers.firstIndex(of: first)!)
                    now = first
                    if driver.armed == first { driver.armed = nil }
                    tick()
                }
                now = until
            }
            // Nothing is overdue: a deadline past its time has been carried out.
            #expect(!pending.values.contains { $0 < now }, "seed \(seed): overdue at \(now): \(pending)")
        }
        #expect(fired > 0)
    }

    @Test func theHeartbeatRearmsForAsLongAsAStreamIsOpen() {
        let h = HubHarness()
        h.feed(.http(HubRequest(id: 70, method: "GET", path: "/api/boards/default/events", peer: "10.0.0.9")))
        let every = h.hub.settings.streamHeartbeat
        // Forty intervals on a quiet board, the clock moved only to the wake-ups the hub asked for.
        var beats: [Instant] = []
        var seen = 0
        for _ in 0..<200 where beats.count < 40 {
            let wakes = h.effects[seen...].compactMap { if case .wakeAt(let t) = $0 { t } else { nil } }
            seen = h.effects.count
            guard let next = wakes.min() else { break }
            let before = h.streamed[70]?.count { $0 == EventStream.heartbeat } ?? 0
            h.now = max(h.now, next)
            h.feed(.tick)
            if (h.streamed[70]?.count { $0 == EventStream.heartbeat } ?? 0) > before { beats.append(h.now) }
        }
        #expect(beats.count == 40, "\(beats.count) heartbeats")
        for (a, b) in zip(beats, beats.dropFirst()) { #expect(b - a == UInt64(every * 1e9)) }
        // Once the stream is gone, the heartbeat stops asking for wake-ups.
        h.feed(.closed(id: 70))
        h.now += UInt64(every * 1e9)
        h.feed(.tick)
        #expect(!h.hub.deadlines.contains(.heartbeat))
    }
}
