import Testing
@testable import FoldCore

/// The roff writer the man pages come from.
@Suite struct ManPageTests {
    @Test func escapesWhatRoffWouldReadAsMarkup() {
        #expect(ManPage.escape("--db PATH") == "\\-\\-db PATH")
        #expect(ManPage.escape("a\\b") == "a\\eb")
        #expect(ManPage.escape(".hidden\n'quote") == "\\&.hidden\n\\&'quote")
    }

    @Test func rendersHeaderSectionsAndEntries() {
        let page = ManPage(name: "tool", section: 8, summary: "does things", source: "tool 1.0", manual: "System Administration",
                           sections: [("Options", [.entries([ManPage.Entry("--db", "PATH", "the \"store\"")])]),
                                      ("Synopsis", [.lines(["tool [options]"])])])
        let lines = page.roff.split(separator: "\n").map(String.init)
        #expect(lines.first == ".TH \"TOOL\" 8 \"\" \"tool 1.0\" \"System Administration\"")
        #expect(lines.contains("tool \\- does things"))
        #expect(lines.contains(".SH \"OPTIONS\""))
        #expect(lines.contains("\\fB\\-\\-db\\fR \\fIPATH\\fR"))
        #expect(lines.contains(".nf") && lines.contains(".fi"))
    }
}
