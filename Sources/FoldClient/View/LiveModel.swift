import FoldCore

/// The live view's state, without I/O: what is shown, where the cursor
/// is, and what each key asks for. Time is passed in (seconds, any origin),
/// so tests never sleep. The runtime feeds it events, performs the effects
/// it returns, and draws `Layout.frame(self, now:)`.
public struct LiveModel: Sendable {
    public enum Connection: Sendable, Equatable {
        case connecting
        case connected
        /// Waiting to retry; `at` is when.
        case reconnecting(at: Double, why: String)
    }

    public enum Overlay: Sendable, Equatable {
        case none
        case help
        case loadingBoards
        /// The board list, with the highlighted row.
        case picker([String], index: Int)
    }

    /// What the runtime should do after a key.
    public enum Effect: Sendable, Equatable {
        case send(Action)
        /// Tell the daemon whether this viewer follows the board (`view`).
        case setView(following: Bool)
        case fetchBoards
        case switchBoard(String)
        case quit
    }

    public private(set) var board: String
    /// The board as the daemon has it.
    public private(set) var document: Board?
    /// The board as this screen shows it: `document`, with this viewer's own
    /// folds while browsing (see LiveModel+Browsing.swift).
    public internal(set) var shown: Board?
    /// This viewer's folds by section id while browsing; nil while following.
    public internal(set) var localFolds: [String: Bool]?
    public private(set) var position: Position?
    public var viewers: Int?
    /// How many viewers follow the board (presence's `following`), when known.
    public var followers: Int?
    /// The board was deleted while watched.
    public private(set) var deleted = false
    public var connection: Connection = .connecting
    /// The section under the cursor, by id (so it survives moves), and its last index.
    public internal(set) var cursorID: String?
    public internal(set) var cursorIndex = 0
    /// The item under the cursor in that section (it is expanded), or nil on its header.
    public internal(set) var cursorItem: Int?
    /// First body row shown.
    public private(set) var top = 0
    public var rows: Int
    public var columns: Int
    public private(set) var overlay: Overlay = .none
    /// A message in the status line until `until`.
    public private(set) var flash: (text: String, until: Double)?
    /// Seconds a status message stays.
    public static let flashSeconds = 4.0

    public init(board: String, rows: Int, columns: Int) {
        self.board = board
        self.rows = rows
        self.columns = columns
    }

    public var isConnected: Bool { connection == .connected }

    // MARK: Board updates

    /// A new state (snapshot or patch): the cursor stays on its section; a
    /// new focus, on a screen that follows, takes the cursor to its item.
    public mutating func update(document: Board?, position: Position?) {
        let focusBefore = self.document?.focus
        self.document = document
        self.position = position
        if document != nil { deleted = false }
        refreshShown()
        if following, let focus = document?.focus, focus != focusBefore {
            goToFocus(focus)
        } else {
            reconcileCursor()
        }
    }

    public mutating func boardDeleted() {
        deleted = true
        document = nil
        shown = nil
        reconcileCursor()
    }

    /// Starts over on another board (nothing known about it yet).
    public mutating func switchTo(board name: String) {
        board = name
        document = nil
        shown = nil
        // Still browsing, but the folds were the other board's.
        if localFolds != nil { localFolds = [:] }
        position = nil
        viewers = nil
        followers = nil
        deleted = false
        cursorID = nil
        cursorIndex = 0
        cursorItem = nil
        top = 0
    }

    public mutating func show(_ text: String, now: Double) {
        flash = (text, now + Self.flashSeconds)
    }

    public mutating func expire(now: Double) {
        if let f = flash, f.until <= now { flash = nil }
    }

    public mutating func showBoards(_ names: [String]) {
        guard overlay == .loadingBoards else { return }
        overlay = .picker(names, index: names.firstIndex(of: board) ?? 0)
    }

    public mutating func closeOverlay() { overlay = .none }

    mutating func reconcileCursor() {
        guard let sections = shown?.sections, !sections.isEmpty else {
            cursorID = nil
            cursorIndex = 0
            cursorItem = nil
            top = 0
            return
        }
        if let id = cursorID, let i = sections.firstIndex(where: { $0.id == id }) {
            cursorIndex = i
        } else {
            cursorIndex = min(cursorIndex, sections.count - 1)
            cursorID = sections[cursorIndex].id
            cursorItem = nil
        }
        // An item only while its section is open and still has it.
        if let item = cursorItem {
            let s = sections[cursorIndex]
            cursorItem = s.expanded && !s.items.isEmpty ? min(item, s.items.count - 1) : nil
        }
        scrollToCursor()
    }

    // MARK: Geometry

    /// Rows between the title line and the status + help lines.
    public var bodyHeight: Int { max(rows - 3, 1) }

    /// Body row of each section header, and the total number of body rows.
    public var headerRows: (rows: [Int], total: Int) {
        var out: [Int] = []
        var row = 0
        for s in shown?.sections ?? [] {
            out.append(row)
            row += 1 + (s.expanded ? s.items.count : 0)
        }
        return (out, row)
    }

    /// Keeps the cursor's header on screen, and no blank space below the
    /// last row when there is more above.
    public mutating func scrollToCursor() {
        let (headers, total) = headerRows
        let h = bodyHeight
        top = min(top, max(total - h, 0))
        guard cursorIndex < headers.count else { top = 0; return }
        let row = headers[cursorIndex] + (cursorItem.map { $0 + 1 } ?? 0)
        if row < top { top = row }
        if row >= top + h { top = row - h + 1 }
        top = max(top, 0)
    }

    /// To a section's header (`item` nil) or one of its items.
    mutating func moveCursor(to index: Int, item: Int? = nil) {
        guard let sections = shown?.sections, !sections.isEmpty else { return }
        cursorIndex = max(0, min(index, sections.count - 1))
        cursorID = sections[cursorIndex].id
        cursorItem = item
        scrollToCursor()
    }

    /// The section whose header is about a page away from the cursor's.
    private func pageTarget(_ direction: Int) -> Int {
        let headers = headerRows.rows
        guard cursorIndex < headers.count else { return 0 }
        let target = headers[cursorIndex] + direction * max(bodyHeight - 1, 1)
        if direction > 0 {
            return headers.lastIndex { $0 <= target } ?? headers.count - 1
        }
        return headers.firstIndex { $0 >= target } ?? 0
    }

    // MARK: Keys

    public mutating func handle(_ key: Key, now: Double) -> [Effect] {
        switch overlay {
        case .help:
            overlay = .none
            return key == .ctrlC ? [.quit] : []
        case .loadingBoards:
            if key == .escape || key == .char("q") { overlay = .none }
            return key == .ctrlC ? [.quit] : []
        case .picker(let names, let index):
            return handlePicker(key, names, index)
        case .none:
            break
        }
        switch key {
        case .up, .char("k"): stepCursor(-1)
        case .down, .char("j"): stepCursor(1)
        case .pageUp: moveCursor(to: pageTarget(-1))
        case .pageDown: moveCursor(to: pageTarget(1))
        case .home, .char("g"): moveCursor(to: 0)
        case .end, .char("G"): moveCursor(to: Int.max / 2)
        case .enter, .space:
            guard let id = cursorID else { return [] }
            // On an item: point everyone at it. On a header: fold.
            if let item = cursorItem { return act(.focus(section: id, item: item), now: now) }
            return fold(.toggle(section: id), now: now)
        case .char("e"):
            // In single mode this is refused (invalid), and the status line says so.
            return fold(.expandAll, now: now)
        case .char("c"): return fold(.collapseAll, now: now)
        case .char("f"): return toggleFollowing(now: now)
        case .char("m"):
            guard let mode = document?.mode else { return [] }
            return act(.setMode(mode == .single ? .multi : .single), now: now)
        case .char("b"):
            overlay = .loadingBoards
            return [.fetchBoards]
        case .char("?"): overlay = .help
        case .char("q"), .ctrlC: return [.quit]
        default: break
        }
        return []
    }

    /// Actions go out only while connected: typed offline they are refused
    /// on screen, never queued to fire later out of context.
    mutating func act(_ action: Action, now: Double) -> [Effect] {
        guard isConnected, document != nil else {
            show("offline: \(action.name) not sent", now: now)
            return []
        }
        return [.send(action)]
    }

    private mutating func handlePicker(_ key: Key, _ names: [String], _ index: Int) -> [Effect] {
        switch key {
        case .up, .char("k"): overlay = .picker(names, index: max(index - 1, 0))
        case .down, .char("j"): overlay = .picker(names, index: min(index + 1, max(names.count - 1, 0)))
        case .enter, .space:
            overlay = .none
            guard index < names.count, names[index] != board else { return [] }
            let name = names[index]
            switchTo(board: name)
            return [.switchBoard(name)]
        case .ctrlC: return [.quit]
        case .escape, .char("q"), .char("b"): overlay = .none
        default: break
        }
        return []
    }
}
