/// Every action's wire `type`, declared once (PROTOCOL.md, "Client to
/// daemon"): decoding, permissions, the clients' encoders and the tests all
/// read this table, so a new action is one case here and one in `Action`.
public enum ActionName: String, CaseIterable, Sendable {
    case toggle, expand, collapse, expandAll, collapseAll
    case setMode, addSection, removeSection, moveSection, setTitle, setItems
    case replace
    /// Extensions: the shared focus.
    case focus, clearFocus
    /// An extension: undo one change from the board's history.
    case revert

    /// Folding, unfolding and pointing at an item (the shared focus): what
    /// a viewer may do without edit rights.
    public var isFold: Bool {
        switch self {
        case .toggle, .expand, .collapse, .expandAll, .collapseAll, .focus, .clearFocus: return true
        default: return false
        }
    }

    /// The permission an action of this kind needs: `fold` for folding and focus,
    /// `admin` to replace a whole board, `edit` for every other change. A
    /// revert needs what the change it undoes needed (checked by the hub once
    /// it has read that change); up front, any one of the three (see
    /// `AccessToken.allows`), so a read-only token costs no history read.
    public var permission: Permission {
        if isFold { return .fold }
        if self == .revert { return [.fold, .edit, .admin] }
        return self == .replace ? .admin : .edit
    }
}
