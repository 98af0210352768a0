/// How much the daemon keeps of each board's past: changes for resume and
/// history, and the keys of keyed actions. One value, read by the option
/// table (FoldConfig) and the hub (`HubSettings`) alike.
public struct Retention: Sendable, Equatable {
    /// Changes kept per board for resuming subscribers, and at least this
    /// many in the history whatever their age.
    public var historyPerBoard = 1_000
    /// Days a change stays in the history (fractions allowed; 0: only the last `historyPerBoard`).
    public var historyDays = 30.0
    /// Hours an action's key is kept at least (and while its rev is among the last `historyPerBoard`).
    public var actionKeyHours = 24
    /// Keys kept per board at most: the bound on what clients' keys cost.
    public var actionKeysPerBoard = 10_000

    public init() {}

    /// `historyDays` in milliseconds.
    public var historyKeepMs: Int { Int(historyDays * 86_400_000) }
    /// `historyDays` as written: `30`, `0.5`.
    public var historyDaysText: String {
        historyDays == historyDays.rounded() ? String(Int(historyDays)) : String(historyDays)
    }
}
