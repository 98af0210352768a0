/// A section to add: the id is generated when absent.
public struct SectionDraft: Sendable, Equatable {
    public var id: String?
    public var title: String
    public var items: [JSON]
    public var expanded: Bool

    public init(id: String? = nil, title: String, items: [JSON] = [], expanded: Bool = false) {
        self.id = id
        self.title = title
        self.items = items
        self.expanded = expanded
    }
}
