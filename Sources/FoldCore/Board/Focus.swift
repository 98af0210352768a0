/// The board's shared focus (an extension): one item of one section, the
/// one every following screen shows. The section is named by id, so moving
/// sections never moves the focus; the item by its index in `items`.
public struct Focus: Sendable, Equatable {
    public var section: String
    public var item: Int

    public init(section: String, item: Int) {
        self.section = section
        self.item = item
    }

    /// `{"section":…,"item":…}`, keys in that order.
    public var json: JSON {
        .object(JSONObject([("section", .string(section)), ("item", .int(item))]))
    }

    /// Types only (the rule that it points at an item needs the board).
    init(json: JSON) throws(FoldError) {
        guard let object = json.objectValue else {
            throw FoldError(.badRequest, "field 'focus' must be an object")
        }
        guard let section = object["section"]?.stringValue else {
            throw FoldError(.badRequest, "field 'section' of 'focus' must be a string")
        }
        guard let item = object["item"]?.intValue else {
            throw FoldError(.badRequest, "field 'item' of 'focus' must be an integer")
        }
        self.init(section: section, item: item)
    }
}

extension Board {
    /// True when there is no focus, or it points at an existing item.
    public var focusIsValid: Bool {
        guard let focus else { return true }
        guard let i = index(of: focus.section) else { return false }
        return focus.item >= 0 && focus.item < sections[i].items.count
    }

    /// The focused item's section index and the item, when there is a focus.
    public var focusedItem: (section: Int, item: JSON)? {
        guard let focus, let i = index(of: focus.section),
              focus.item >= 0, focus.item < sections[i].items.count else { return nil }
        return (i, sections[i].items[focus.item])
    }
}
