/// Everything a client can ask a board to do (PROTOCOL.md, "Client to daemon").
public enum Action: Sendable, Equatable {
    case toggle(section: String)
    case expand(section: String)
    case collapse(section: String)
    case expandAll
    case collapseAll
    case setMode(BoardMode)
    /// `at` nil appends.
    case addSection(SectionDraft, at: Int?)
    case removeSection(section: String)
    case moveSection(section: String, to: Int)
    case setTitle(section: String, title: String)
    case setItems(section: String, items: [JSON])
    case replace(Board)
    /// Extensions: the shared focus (`fold` permission).
    case focus(section: String, item: Int)
    case clearFocus
    /// Undo the change that made `rev` (an extension): its inverse, as a new change.
    case revert(rev: Int)

    /// Which action this is; its `rawValue` is the message `type` on the wire.
    public var kind: ActionName {
        switch self {
        case .toggle: return .toggle
        case .expand: return .expand
        case .collapse: return .collapse
        case .expandAll: return .expandAll
        case .collapseAll: return .collapseAll
        case .setMode: return .setMode
        case .addSection: return .addSection
        case .removeSection: return .removeSection
        case .moveSection: return .moveSection
        case .setTitle: return .setTitle
        case .setItems: return .setItems
        case .replace: return .replace
        case .focus: return .focus
        case .clearFocus: return .clearFocus
        case .revert: return .revert
        }
    }

    /// The message `type` on the wire.
    public var name: String { kind.rawValue }

    /// Folding, unfolding and pointing: what a viewer may do without edit rights.
    public var isFold: Bool { kind.isFold }
}
