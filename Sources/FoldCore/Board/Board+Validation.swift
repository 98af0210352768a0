/// Reading and checking whole documents. Wrong shapes and types are
/// `bad_request`; well-formed documents that break a rule or a limit are
/// `invalid`. Unknown members are ignored on input (forward compatibility)
/// and are not stored: the board keeps only its known fields.
extension Board {
    public init(json: JSON, limits: Limits) throws(FoldError) {
        try self.init(shape: json, maxSections: limits.maxSections)
        try validate(limits: limits)
    }

    /// Types only, and no more than `maxSections` sections read.
    init(shape json: JSON, maxSections: Int) throws(FoldError) {
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
        guard list.count <= maxSections else {
            throw FoldError(.invalid, "more than \(maxSections) sections")
        }
        var sections: [Section] = []
        sections.reserveCapacity(list.count)
        for (i, value) in list.enumerated() {
            sections.append(try Section(json: value, at: i))
        }
        let focus: Focus?
        if let value = object["focus"] { focus = try Focus(json: value) } else { focus = nil }
        self.init(mode: mode, sections: sections, focus: focus)
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
        guard focusIsValid else {
            throw FoldError(.invalid, "field 'focus' must name an existing section and item")
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
