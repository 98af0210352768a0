/// Reading and checking whole documents. Wrong shapes and types are
/// `bad_request`; well-formed documents that break a rule or a limit are
/// `invalid`. Unknown members are ignored on input (forward compatibility)
/// and are not stored: the board keeps only its known fields.
extension Board {
    public init(json: JSON, limits: Limits) throws(FoldError) {
        guard let object = json.objectValue else {
            throw FoldError(.badRequest, "board state must be an object")
        }
        guard let modeText = object["mode"]?.stringValue else {
            throw FoldError(.badRequest, "field 'mode' must be a string")
        }
        guard let mode = BoardMode(rawValue: modeText) else {
            throw FoldError(.badRequest, "field 'mode' must be \"single\" or \"multi\"")
        }
        guard let list = object["sections"]?.arrayValue else {
            throw FoldError(.badRequest, "field 'sections' must be an array")
        }
        guard list.count <= limits.maxSections else {
            throw FoldError(.invalid, "more than \(limits.maxSections) sections")
        }
        var sections: [Section] = []
        sections.reserveCapacity(list.count)
        for (i, value) in list.enumerated() {
            sections.append(try Section(json: value, at: i))
        }
        self.init(mode: mode, sections: sections)
        try validate(limits: limits)
    }

    /// Checks every rule and limit of a board whose fields are well typed.
    public func validate(limits: Limits) throws(FoldError) {
        guard sections.count <= limits.maxSections else {
            throw FoldError(.invalid, "more than \(limits.maxSections) sections")
        }
        var seen = Set<String>(minimumCapacity: sections.count)
        for section in sections {
            guard Names.isValid(section.id) else {
                throw FoldError(.badRequest, "section id '\(section.id)' must be 1-64 characters of [A-Za-z0-9_.-]")
            }
            guard seen.insert(section.id).inserted else {
                throw FoldError(.invalid, "duplicate section id '\(section.id)'")
            }
            try Self.checkTitle(section.title, limits: limits)
            try Self.checkItems(section.items, limits: limits)
        }
        if mode == .single, sections.lazy.filter(\.expanded).count > 1 {
            throw FoldError(.invalid, "more than one section expanded in single mode")
        }
        try checkSize(limits: limits)
    }

    func checkSize(limits: Limits) throws(FoldError) {
        guard encodedByteCount(limit: limits.maxBoardBytes) <= limits.maxBoardBytes else {
            throw FoldError(.invalid, "board larger than \(limits.maxBoardBytes) bytes")
        }
    }

    static func checkTitle(_ title: String, limits: Limits) throws(FoldError) {
        guard title.utf8.count <= limits.maxTitleBytes else {
            throw FoldError(.invalid, "title longer than \(limits.maxTitleBytes) bytes")
        }
    }

    /// Items are a string, or an object with a string `label` (other
    /// members are kept: clients may attach their own data).
    static func checkItems(_ items: [JSON], limits: Limits) throws(FoldError) {
        guard items.count <= limits.maxItems else {
            throw FoldError(.invalid, "more than \(limits.maxItems) items")
        }
        for item in items {
            switch item {
            case .string:
                break
            case .object(let object) where object["label"]?.stringValue != nil:
                guard item.depth <= limits.maxJSONDepth else {
                    throw FoldError(.invalid, "item nested deeper than \(limits.maxJSONDepth)")
                }
            default:
                throw FoldError(.badRequest, "each item must be a string or an object with a string 'label'")
            }
            guard item.encodedByteCount(limit: limits.maxItemBytes) <= limits.maxItemBytes else {
                throw FoldError(.invalid, "item larger than \(limits.maxItemBytes) bytes")
            }
        }
    }
}

extension Section {
    /// Types only; rules are checked by `Board.validate(limits:)`.
    init(json: JSON, at index: Int) throws(FoldError) {
        guard let object = json.objectValue else {
            throw FoldError(.badRequest, "section \(index) must be an object")
        }
        guard let id = object["id"]?.stringValue else {
            throw FoldError(.badRequest, "field 'id' of section \(index) must be a string")
        }
        guard let title = object["title"]?.stringValue else {
            throw FoldError(.badRequest, "field 'title' of section \(index) must be a string")
        }
        guard let items = object["items"]?.arrayValue else {
            throw FoldError(.badRequest, "field 'items' of section \(index) must be an array")
        }
        guard let expanded = object["expanded"]?.boolValue else {
            throw FoldError(.badRequest, "field 'expanded' of section \(index) must be a boolean")
        }
        self.init(id: id, title: title, items: items, expanded: expanded)
    }
}
