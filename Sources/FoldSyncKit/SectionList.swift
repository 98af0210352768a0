import FoldCore

/// A board as a diffable data source needs it: section identifiers in
/// order, item identifiers per section, which sections show their items,
/// and what changed since the previous list. A pure value: built and
/// compared on any platform, so the logic of a collection view or a list
/// lives here, not in the view code.
public struct SectionList: Sendable, Equatable {
    /// An item's identity within the board: its section and its `id`, or
    /// its index when it has no id (or repeats one), so identifiers are
    /// unique as `NSDiffableDataSourceSnapshot` requires.
    public struct ItemID: Hashable, Sendable, CustomStringConvertible {
        public let section: String
        public let item: String
        public var description: String { "\(section)/\(item)" }
    }

    public let sections: [String]
    /// Every item of each section, shown or not.
    public let items: [String: [ItemID]]
    /// Sections that show their items.
    public let open: Set<String>
    public let titles: [String: String]
    private let labels: [ItemID: Item]

    public init(_ board: Board?) {
        var items: [String: [ItemID]] = [:], titles: [String: String] = [:], labels: [ItemID: Item] = [:]
        for section in board?.sections ?? [] {
            var seen = Set<String>()
            var ids: [ItemID] = []
            for (index, json) in section.items.enumerated() {
                let item = Item(json)
                let key: String
                if let id = item.id, seen.insert(id).inserted { key = "id:" + id } else { key = "#\(index)" }
                let itemID = ItemID(section: section.id, item: key)
                ids.append(itemID)
                labels[itemID] = item
            }
            items[section.id] = ids
            titles[section.id] = section.title
        }
        sections = board?.sections.map(\.id) ?? []
        open = Set(board?.sections.filter(\.expanded).map(\.id) ?? [])
        self.items = items
        self.titles = titles
        self.labels = labels
    }

    /// The items a section shows: all of them when open, none when closed.
    public func shownItems(of section: String) -> [ItemID] { open.contains(section) ? items[section] ?? [] : [] }

    public func item(_ id: ItemID) -> Item? { labels[id] }

    /// What changed from `old` to this list, section by section.
    public struct Changes: Sendable, Equatable {
        public var inserted: [String] = []
        public var removed: [String] = []
        /// Sections in both lists whose order among them changed.
        public var moved: [String] = []
        public var opened: [String] = []
        public var closed: [String] = []
        /// Sections in both whose title or items changed (reload them).
        public var reloaded: [String] = []
        public var isEmpty: Bool { self == Changes() }
    }

    public func changes(since old: SectionList) -> Changes {
        var c = Changes()
        let before = Set(old.sections), after = Set(sections)
        c.inserted = sections.filter { !before.contains($0) }
        c.removed = old.sections.filter { !after.contains($0) }
        let keptBefore = old.sections.filter(after.contains), keptAfter = sections.filter(before.contains)
        c.moved = Self.moved(from: keptBefore, to: keptAfter)
        for id in keptAfter {
            if open.contains(id) && !old.open.contains(id) { c.opened.append(id) }
            if !open.contains(id) && old.open.contains(id) { c.closed.append(id) }
            let itemsChanged = items[id] != old.items[id] || items[id]?.contains { labels[$0] != old.labels[$0] } == true
            if titles[id] != old.titles[id] || itemsChanged { c.reloaded.append(id) }
        }
        return c
    }

    /// The fewest sections to move: those outside a longest run kept in order.
    static func moved(from old: [String], to new: [String]) -> [String] {
        let rank = Dictionary(uniqueKeysWithValues: old.enumerated().map { ($1, $0) })
        let ranks = new.map { rank[$0]! }
        // Longest increasing subsequence by patience sorting, keeping its members.
        var tails: [Int] = [], tailIndex: [Int] = [], previous = Array(repeating: -1, count: ranks.count)
        for (i, r) in ranks.enumerated() {
            var lo = 0, hi = tails.count
            while lo < hi { let mid = (lo + hi) / 2; if tails[mid] < r { lo = mid + 1 } else { hi = mid } }
            if lo > 0 { previous[i] = tailIndex[lo - 1] }
            if lo == tails.count { tails.append(r); tailIndex.append(i) } else { tails[lo] = r; tailIndex[lo] = i }
        }
        var keep = Set<Int>()
        var i = tailIndex.last ?? -1
        while i >= 0 { keep.insert(i); i = previous[i] }
        return new.indices.filter { !keep.contains($0) }.map { new[$0] }
    }
}
