/// When a fan-out's frame leaves for its subscribers.
public enum FanOutFlush: Sendable, Equatable {
    /// Queued; the turn's flush writes it, beside whatever else the turn
    /// queued for the same connection (several changes: one write each).
    case endOfTurn
    /// Written as it is queued, one connection after another, except to the
    /// connections in `except`, which the turn also answers (the writer's
    /// `ack`): they wait for the flush and get patch and ack in one write.
    case now(except: [UInt64])

    /// Answers beside a lone fan-out that still let it write as it goes: with
    /// more (a group of no-ops beside one change) the per-subscriber check
    /// would become a scan, and the turn's flush writes everyone instead.
    public static let maxAnswersAlone = 8

    /// The turn's decision, made once its effects are known: a lone fan-out
    /// writes as it goes; several wait for the turn's flush, so a subscriber
    /// of each gets them in one write.
    static func decide(_ effects: inout [HubEffect]) {
        var fanOuts = 0
        var lone = -1
        var answeredInTurn: [UInt64] = []
        for (i, e) in effects.enumerated() {
            switch e {
            case .fanOut:
                fanOuts += 1
                lone = i
            case .send(let ids, _) where fanOuts > 0: answeredInTurn += ids
            default: break
            }
        }
        guard fanOuts == 1, answeredInTurn.count <= maxAnswersAlone, case .fanOut(let ids, let frame, _) = effects[lone] else { return }
        effects[lone] = .fanOut(ids: ids, frame: frame, flush: .now(except: answeredInTurn))
    }
}
