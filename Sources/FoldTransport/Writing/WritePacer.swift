/// The pacing's timer: connections told to wait (`Pacing.hold`) in the
/// order of their due times, and one armed timer that hands each back to the
/// writer when its time comes.
///
/// Service thread only.
final class WritePacer {
    var pacing: Pacing
    private var waiting: [(connection: Connection, due: UInt64)] = []
    private var head = 0
    private var armed = false
    private let schedule: (Int64, @escaping () -> Void) -> Void
    /// Hands a connection whose wait is over back to the writer.
    var release: (Connection) -> Void = { _ in }

    init(lingerMs: Int, schedule: @escaping (Int64, @escaping () -> Void) -> Void) {
        pacing = Pacing(lingerMs: lingerMs)
        self.schedule = schedule
    }

    /// `c` waits until `due` (never before those already waiting).
    func wait(_ c: Connection, until due: UInt64) {
        waiting.append((c, due))
        arm(at: due)
    }

    private func arm(at due: UInt64) {
        guard !armed else { return }
        armed = true
        let now = Pacing.now()
        schedule(Int64(due > now ? (due - now) / 1_000 : 0)) { [weak self] in self?.fire() }
    }

    private func fire() {
        armed = false
        let now = Pacing.now()
        while head < waiting.count, waiting[head].due <= now {
            let c = waiting[head].connection
            head += 1
            if c.out.waitOver() { release(c) }
        }
        if head == waiting.count {
            waiting.removeAll(keepingCapacity: true)
            head = 0
        } else {
            if head > 1024 {
                waiting.removeFirst(head)
                head = 0
            }
            arm(at: waiting[head].due)
        }
    }
}
