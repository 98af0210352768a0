/// One collapsible section of a board.
public struct Section: Sendable, Equatable {
    /// Unique within the board; see `Names`.
    public var id: String
    public var title: String
    /// Each a string, or an object whose string `label` is shown.
    public var items: [JSON]
    public var expanded: Bool

    public init(id: String, title: String, items: [JSON] = [], expanded: Bool = false) {
        self.id = id
        self.title = title
        self.items = items
        self.expanded = expanded
    }
}
