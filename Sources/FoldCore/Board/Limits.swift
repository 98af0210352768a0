/// Size limits on boards; breaking one is an `invalid` action.
public struct Limits: Sendable, Equatable {
    /// Boards per daemon.
    public var maxBoards = 1_000
    /// Sections per board.
    public var maxSections = 5_000
    /// Items per section.
    public var maxItems = 10_000
    /// UTF-8 bytes per section title.
    public var maxTitleBytes = 1_024
    /// Encoded JSON bytes per item.
    public var maxItemBytes = 4_096
    /// Encoded bytes of a whole board document.
    public var maxBoardBytes = 4 * 1024 * 1024
    /// Nesting depth of any JSON a client sends.
    public var maxJSONDepth = 32

    public init() {}

    public static let defaults = Limits()
}
