extension FieldReader {
    /// The action-specific fields of a message whose `type` is an action name.
    func action(type: ActionName, limits: Limits) throws(WireError) -> Action {
        switch type {
        case .toggle: return .toggle(section: try string("section"))
        case .expand: return .expand(section: try string("section"))
        case .collapse: return .collapse(section: try string("section"))
        case .expandAll: return .expandAll
        case .collapseAll: return .collapseAll
        case .setMode:
            guard let mode = BoardMode(rawValue: try string("mode")) else {
                throw fail("field 'mode' must be \"single\" or \"multi\"")
            }
            return .setMode(mode)
        case .addSection:
            let draft = FieldReader(object: try object("section"), id: id, board: board)
            let items = draft.object["items"] == nil ? [] : try draft.array("items")
            return .addSection(
                SectionDraft(
                    id: try draft.optionalString("id"), title: try draft.string("title"),
                    items: items, expanded: try draft.bool("expanded", default: false)),
                at: try optionalInt("at"))
        case .removeSection: return .removeSection(section: try string("section"))
        case .moveSection: return .moveSection(section: try string("section"), to: try int("to"))
        case .setTitle: return .setTitle(section: try string("section"), title: try string("title"))
        case .setItems: return .setItems(section: try string("section"), items: try array("items"))
        case .focus:
            return .focus(section: try string("section"), item: try int("item"))
        case .clearFocus: return .clearFocus
        case .revert: return .revert(rev: try int("rev"))
        case .replace:
            guard let state = object["state"] else { throw fail("field 'state' must be an object") }
            do throws(FoldError) {
                return .replace(try Board(json: state, limits: limits))
            } catch {
                throw WireError(error, id: id, board: board)
            }
        }
    }
}
