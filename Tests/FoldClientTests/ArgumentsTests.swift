import FoldClient
import FoldCore
import Testing

@Suite struct ArgumentsTests {
    func parse(_ args: [String], env: [String: String] = [:]) -> Result<Invocation, UsageError> {
        Arguments.parse(args, environment: env)
    }

    @Test func optionsBeforeOrAfterTheCommand() throws {
        let a = try parse(["--board", "x", "toggle", "#1", "--json", "--url=ws://h:1/ws"]).get()
        #expect(a.command == .fold(.toggle, section: "#1"))
        #expect(a.options.board == "x")
        #expect(a.options.json)
        #expect(a.options.url == "ws://h:1/ws")
    }

    @Test func defaultsAndEnvironment() throws {
        let a = try parse([]).get()
        #expect(a.command == .live)
        #expect(a.options.url == "ws://127.0.0.1:7681/ws")
        #expect(a.options.board == "default")
        let b = try parse(["show", "--token", "t2"], env: ["FOLDSYNC_URL": "ws://e/ws", "FOLDSYNC_TOKEN": "t1"]).get()
        #expect(b.options.url == "ws://e/ws")
        #expect(b.options.token == "t2")
    }

    /// Several daemons: `--url` repeated or a comma list, in order; the environment's too.
    @Test func severalURLs() throws {
        let a = try parse(["show", "--url", "ws://a/ws,ws://b/ws", "--url=ws://c/ws"]).get()
        #expect(a.options.urls == ["ws://a/ws", "ws://b/ws", "ws://c/ws"])
        #expect(a.options.url == "ws://a/ws")
        let b = try parse(["show"], env: ["FOLDSYNC_URL": "ws://e/ws,ws://f/ws"]).get()
        #expect(b.options.urls == ["ws://e/ws", "ws://f/ws"])
        #expect(try parse(["show", "--url", "ws://g/ws"], env: ["FOLDSYNC_URL": "ws://e/ws,ws://f/ws"]).get().options.urls == ["ws://g/ws"])
        #expect(throws: UsageError.self) { try parse(["show", "--url", "ws://a/ws,,ws://b/ws"]).get() }
    }

    @Test func addSectionAndOtherCommands() throws {
        #expect(try parse(["add-section", "T", "--items", "a,b", "--at", "2", "--id", "x"]).get().command
                == .addSection(title: "T", items: ["a", "b"], at: 2, id: "x"))
        #expect(try parse(["set-items", "s1", "a", "b"]).get().command == .setItems("s1", items: ["a", "b"]))
        #expect(try parse(["set-title", "s1", "--", "-dash"]).get().command == .setTitle("s1", title: "-dash"))
        #expect(try parse(["load", "-"]).get().command == .load("-"))
        #expect(try parse(["mode", "multi"]).get().command == .mode(.multi))
        #expect(try parse(["watch", "--help"]).get().command == .help("watch"))
    }

    @Test func badUsage() {
        for args in [["nope"], ["toggle"], ["mode", "x"], ["show", "--items", "a"], ["--board", "a b", "show"],
                     ["move-section", "s", "-1"], ["show", "--json=1"], ["show", "--timeout", "x"]] {
            #expect((try? parse(args).get()) == nil, "\(args)")
        }
    }

    @Test func helpListsEveryCommand() {
        let text = CommandTable.help(for: nil)
        for c in CommandTable.commands { #expect(text.contains(c.usage)) }
        #expect(CommandTable.help(for: "add-section").contains("--items A,B"))
    }

    @Test func versionAndTheHiddenManPage() throws {
        #expect(try parse(["--version"]).get().command == .text("foldsync \(DaemonVersion.string)\n"))
        guard case .text(let roff) = try parse(["--man"]).get().command else {
            Issue.record("--man is not the man page")
            return
        }
        #expect(roff.hasPrefix(".TH \"FOLDSYNC\" 1"))
        for c in CommandTable.commands { #expect(roff.contains("\\fB\(ManPage.escape(c.name))\\fR"), "foldsync(1) lacks \(c.name)") }
        #expect(!CommandTable.help(for: nil).contains("--man"), "--man stays hidden")
    }
}
