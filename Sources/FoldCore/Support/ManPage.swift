/// A manual page as data, rendered to roff with the man(7) macros. The
/// daemon's and the client's pages are built from their option and command
/// tables (the ones `--help` prints), so the two cannot drift apart; the
/// package runs the hidden `--man` flag to write them.
public struct ManPage: Sendable, Equatable {
    /// One term and its description (an option, a command, a file).
    public struct Entry: Sendable, Equatable {
        public var term: String
        /// Words of the term printed in italics (placeholders such as `PATH`).
        public var placeholder: String
        public var text: String
        public init(_ term: String, _ placeholder: String = "", _ text: String) {
            self.term = term
            self.placeholder = placeholder
            self.text = text
        }
    }

    public enum Block: Sendable, Equatable {
        case paragraph(String)
        case entries([Entry])
        /// Lines shown as they are (no filling), such as a synopsis.
        case lines([String])
    }

    public var name: String
    public var section: Int
    /// The NAME line's text after the dash.
    public var summary: String
    /// The centre footer, e.g. "foldsync 0.1.0".
    public var source: String
    /// The centre header, e.g. "System Administration".
    public var manual: String
    public var sections: [(title: String, blocks: [Block])]

    public init(name: String, section: Int, summary: String, source: String, manual: String, sections: [(title: String, blocks: [Block])]) {
        self.name = name
        self.section = section
        self.summary = summary
        self.source = source
        self.manual = manual
        self.sections = sections
    }

    public static func == (a: ManPage, b: ManPage) -> Bool { a.roff == b.roff }

    /// The page in roff. No date in the header, so a rebuild is byte for byte the same.
    public var roff: String {
        var out = ".TH \(Self.quoted(name.uppercased())) \(section) \"\" \(Self.quoted(source)) \(Self.quoted(manual))\n"
        out += ".SH NAME\n\(Self.escape(name)) \\- \(Self.escape(summary))\n"
        for (title, blocks) in sections {
            out += ".SH \(Self.quoted(title.uppercased()))\n"
            for block in blocks {
                switch block {
                case .paragraph(let text):
                    out += ".PP\n\(Self.escape(text))\n"
                case .lines(let lines):
                    out += ".nf\n" + lines.map { Self.escape($0) + "\n" }.joined() + ".fi\n"
                case .entries(let entries):
                    for e in entries {
                        let term = "\\fB\(Self.escape(e.term))\\fR" + (e.placeholder.isEmpty ? "" : " \\fI\(Self.escape(e.placeholder))\\fR")
                        out += ".TP\n\(term)\n\(Self.escape(e.text))\n"
                    }
                }
            }
        }
        return out
    }

    /// Text made safe for roff: backslashes and hyphens escaped, and a line
    /// that would start with a control character (`.` or `'`) guarded.
    public static func escape(_ text: String) -> String {
        var out = ""
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if !out.isEmpty { out += "\n" }
            if line.hasPrefix(".") || line.hasPrefix("'") { out += "\\&" }
            for ch in line {
                switch ch {
                case "\\": out += "\\e"
                case "-": out += "\\-"
                default: out.append(ch)
                }
            }
        }
        return out
    }

    static func quoted(_ text: String) -> String {
        "\"" + escape(text).replacingAll("\"", with: "\\(dq") + "\""
    }
}

extension String {
    /// Every `target` replaced (FoldCore has no Foundation).
    func replacingAll(_ target: Character, with replacement: String) -> String {
        var out = ""
        for ch in self { if ch == target { out += replacement } else { out.append(ch) } }
        return out
    }
}
