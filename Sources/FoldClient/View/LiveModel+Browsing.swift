import FoldCore

/// Follow or browse (an extension). Following, the screen shows the board's
/// folds and every fold key is sent. Browsing, folds are this viewer's own:
/// they are applied here with the board's own rules (the accordion in single
/// mode) and nothing is sent, while the board's edits to titles, items and
/// sections keep arriving. Switching back snaps to the board's folds and focus.
extension LiveModel {
    public var following: Bool { localFolds == nil }

    /// `f`: switch, and have the daemon told (a read-only token may browse too).
    mutating func toggleFollowing(now: Double) -> [Effect] {
        if following {
            localFolds = Dictionary((document?.sections ?? []).map { ($0.id, $0.expanded) }, uniquingKeysWith: { a, _ in a })
            show("browsing: your folds stay on this screen · f to follow the board again", now: now)
        } else {
            localFolds = nil
            show("following the board", now: now)
        }
        refreshShown()
        if following, let focus = document?.focus { goToFocus(focus) } else { reconcileCursor() }
        return isConnected ? [.setView(following: following)] : []
    }

    /// A fold key: sent while following, applied here while browsing.
    mutating func fold(_ action: Action, now: Double) -> [Effect] {
        guard !following else { return act(action, now: now) }
        guard let board = shown else { return [] }
        do throws(FoldError) {
            guard let change = try board.applying(action, limits: .defaults) else { return [] }
            for s in change.board.sections { localFolds?[s.id] = s.expanded }
            refreshShown()
            reconcileCursor()
        } catch {
            show("\(error.code.rawValue): \(error.message)", now: now)
        }
        return []
    }

    /// `shown` from `document` and, while browsing, this viewer's folds;
    /// sections added since take the board's flag, and single mode keeps
    /// at most one open (the first).
    mutating func refreshShown() {
        guard var board = document, let folds = localFolds else {
            shown = document
            return
        }
        var open = false
        for i in board.sections.indices {
            var expanded = folds[board.sections[i].id] ?? board.sections[i].expanded
            if board.mode == .single && open { expanded = false }
            open = open || expanded
            board.sections[i].expanded = expanded
        }
        shown = board
    }
}
