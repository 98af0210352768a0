import FoldCore

/// One screen line: its text, already cut to the terminal's width, the
/// columns it takes, and how it is to be drawn.
public struct ScreenLine: Sendable, Equatable {
    public enum Style: Sendable, Equatable { case plain, title, cursor, status, help, focus }
    public var text: String
    public var width: Int
    public var style: Style
}

/// The live view's frame, as lines: title, body (sections or an overlay),
/// status, help. Exactly `rows` lines, none wider than `columns`.
public enum Layout {
    public static let helpLine = "↑↓ move  ⏎ toggle/focus  e/c all  f follow/browse  m mode  b boards  ? help  q quit"

    public static let helpText = [
        "Keys",
        "",
        "  ↑ ↓  k j      move between sections and the items of open ones",
        "  PgUp PgDn     a page up or down",
        "  Home End      first or last section",
        "  Enter Space   on a header: expand or collapse it; on an item:",
        "                point everyone at it (the board's focus, marked →)",
        "  e  c          expand all (multi mode) / collapse all",
        "  f             follow the board, or browse: your folds stay on",
        "                this screen and nothing is sent; f again snaps back",
        "  m             switch between single (accordion) and multi mode",
        "  b             pick another board",
        "  ?             this help",
        "  q  Ctrl-C     quit",
        "",
        "Any key closes this help.",
    ]

    public static func frame(_ m: LiveModel, now: Double) -> [ScreenLine] {
        let rows = max(m.rows, 1)
        var out: [ScreenLine] = [line(titleText(m, now: now), m.columns, .title)]
        let body = bodyLines(m)
        for i in 0..<m.bodyHeight {
            out.append(i < body.count ? fitted(body[i], m.columns) : line("", m.columns, .plain))
        }
        out.append(line(m.flash.map { $0.text } ?? (m.following ? "" : "browsing on your own · f follows the board again"),
                        m.columns, .status))
        out.append(line(helpLine, m.columns, .help))
        if out.count > rows {
            // Tiny terminals: keep the title and the body.
            out = Array(out.prefix(rows))
        }
        return out
    }

    static func line(_ text: String, _ columns: Int, _ style: ScreenLine.Style) -> ScreenLine {
        let (t, w) = DisplayWidth.fit(Printable.clean(text), columns)
        return ScreenLine(text: t, width: w, style: style)
    }

    static func fitted(_ l: ScreenLine, _ columns: Int) -> ScreenLine {
        line(l.text, columns, l.style)
    }

    public static func titleText(_ m: LiveModel, now: Double) -> String {
        var parts = [m.board]
        var reason: String? = nil
        switch m.connection {
        case .connecting: parts.append("connecting…")
        case .connected: parts.append("connected")
        case .reconnecting(let at, let why):
            let seconds = max(Int((at - now).rounded(.up)), 0)
            parts.append(seconds > 0 ? "reconnecting in \(seconds)s" : "reconnecting…")
            reason = why
        }
        if let p = m.position { parts.append("rev \(p.rev)") }
        if let v = m.viewers, m.isConnected {
            let count = v == 1 ? "1 viewer" : "\(v) viewers"
            parts.append(m.followers.map { "\(count) (\($0) following)" } ?? count)
        }
        parts.append(m.following ? "following" : "browsing")
        if let mode = m.document?.mode { parts.append(mode.rawValue) }
        if let reason { parts.append(reason) }
        return parts.joined(separator: " · ")
    }

    static func bodyLines(_ m: LiveModel) -> [ScreenLine] {
        switch m.overlay {
        case .help:
            return helpText.map { ScreenLine(text: $0, width: 0, style: .plain) }
        case .loadingBoards:
            return [ScreenLine(text: "Boards: loading…", width: 0, style: .plain)]
        case .picker(let names, let index):
            var out = [ScreenLine(text: "Pick a board (↑↓, Enter; Esc cancels)", width: 0, style: .plain)]
            for (i, n) in names.enumerated() {
                out.append(ScreenLine(text: (i == index ? "> " : "  ") + n + (n == m.board ? "  (current)" : ""),
                                      width: 0, style: i == index ? .cursor : .plain))
            }
            let visible = max(m.bodyHeight - 1, 1)
            if index >= visible { out.removeSubrange(1..<(1 + index - visible + 1)) }
            return out
        case .none:
            break
        }
        guard let doc = m.shown else {
            let text = m.deleted ? "(the board '\(m.board)' was deleted)" : "(waiting for the board…)"
            return [ScreenLine(text: text, width: 0, style: .plain)]
        }
        if doc.sections.isEmpty { return [ScreenLine(text: "(no sections)", width: 0, style: .plain)] }
        var all: [ScreenLine] = []
        for (i, s) in doc.sections.enumerated() {
            let mine = i == m.cursorIndex
            let onHeader = mine && m.cursorItem == nil
            all.append(ScreenLine(text: (onHeader ? "> " : "  ") + (s.expanded ? "▾ " : "▸ ") + s.title,
                                  width: 0, style: onHeader ? .cursor : .plain))
            if s.expanded {
                for (n, item) in s.items.enumerated() {
                    let here = mine && m.cursorItem == n
                    let focused = m.isFocused(s.id, n)
                    let text = (here ? "  > " : "    ") + (focused ? "→ " : "  ") + itemText(Item(item))
                    all.append(ScreenLine(text: text, width: 0, style: here ? .cursor : focused ? .focus : .plain))
                }
            }
        }
        return Array(all.dropFirst(m.top).prefix(m.bodyHeight))
    }

    /// One row per item: the label with its badge and link, then the detail.
    static func itemText(_ item: Item) -> String {
        let lines = ItemLabel.lines(item)
        return lines.count > 1 ? lines[0] + " — " + lines[1] : lines[0]
    }
}
