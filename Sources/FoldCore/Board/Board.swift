/// A board's state: the document that patches apply to.
public struct Board: Sendable, Equatable {
    public var mode: BoardMode
    public var sections: [Section]
    /// The shared focus (an extension); absent from the document when nil.
    public var focus: Focus?

    public init(mode: BoardMode, sections: [Section], focus: Focus? = nil) {
        self.mode = mode
        self.sections = sections
        self.focus = focus
    }

    /// The contract's default board: the three arrays of the original
    /// collapsible-section example, titled by number, all collapsed, accordion.
    public static let initial = Board(mode: .single, sections: [
        Section(id: "s0", title: "0", items: [.string("1"), .string("2")]),
        Section(id: "s1", title: "1", items: [.string("222"), .string("333")]),
        Section(id: "s2", title: "2", items: [.string("33333"), .string("44444")]),
    ])

    /// Linear: boards are small enough (≤ 5,000 sections) that a scan of
    /// short ids costs microseconds, and no index can go stale.
    public func index(of sectionID: String) -> Int? {
        sections.firstIndex { $0.id == sectionID }
    }

    /// Indices of the expanded sections, in order.
    public var expandedIndices: [Int] {
        sections.indices.filter { sections[$0].expanded }
    }
}
