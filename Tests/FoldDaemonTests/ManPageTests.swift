import FoldConfig
import FoldCore
import FoldHub
import Testing
@testable import FoldDaemon

/// foldsyncd(8) is the option table: it cannot lack what --help lists.
@Suite struct DaemonManPageTests {
    @Test func everyOptionOfHelpIsInTheManPage() throws {
        let roff = DaemonCommand.manPage.roff
        for o in OptionTable.options {
            #expect(roff.contains("\\fB\\-\\-\(o.key.replacingOccurrences(of: "-", with: "\\-"))\\fR"), "foldsyncd(8) lacks --\(o.key)")
        }
        for flag in ["config", "check\\-config", "version"] { #expect(roff.contains("\\fB\\-\\-\(flag)\\fR")) }
        for c in DaemonCommand.subcommands { #expect(roff.contains(ManPage.escape(String(c.usage.split(separator: " ")[0])))) }
        #expect(DaemonCommand.usage.contains("--check-config"))
    }

    @Test func theHiddenFlagPrintsIt() throws {
        guard case .help(let text) = try DaemonCommand.parse(["--man"], environment: [:]) else {
            Issue.record("--man is not the man page")
            return
        }
        #expect(text.hasPrefix(".TH \"FOLDSYNCD\" 8"))
        #expect(!DaemonCommand.usage.contains("--man"), "--man stays hidden")
    }
}
