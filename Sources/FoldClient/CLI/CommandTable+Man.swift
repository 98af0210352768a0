import FoldCore

extension CommandTable {
    /// foldsync(1), from the command table and the common options `--help`
    /// prints; `foldsync --man` writes it and `make deb` installs it.
    public static var manPage: ManPage {
        func entry(_ flag: String, _ text: String) -> ManPage.Entry {
            // "--url URL" → term "--url", placeholder "URL"; "-h, --help" stays whole.
            let words = flag.split(separator: " ", maxSplits: 1).map(String.init)
            if words.count == 2, !words[0].hasSuffix(","), words[1].uppercased() == words[1] { return ManPage.Entry(words[0], words[1], text) }
            return ManPage.Entry(flag, "", text)
        }
        var commandBlocks: [ManPage.Block] = []
        for c in commands {
            let words = c.usage.split(separator: " ", maxSplits: 1).map(String.init)
            commandBlocks.append(.entries([ManPage.Entry(words[0], words.count > 1 ? words[1] : "", c.summary + ".")]))
            if !c.options.isEmpty {
                commandBlocks.append(.entries(c.options.map { entry($0.0, $0.1) }))
            }
        }
        return ManPage(
            name: "foldsync", section: 1, summary: "the terminal client of foldsyncd's collapsible-section boards",
            source: "foldsync \(DaemonVersion.string)", manual: "User Commands",
            sections: [
                ("Synopsis", [.lines(["foldsync [OPTIONS] [COMMAND [ARGS]]", "foldsync COMMAND --help"])]),
                ("Description", [
                    .paragraph("Without a command, on a terminal, foldsync shows the board live and folds it with the keys: arrows or j/k move, Enter or Space toggles a section or points everyone at an item, e and c expand or collapse all, f switches between following the board and browsing on your own, m switches the mode, b picks another board, ? shows help and q quits."),
                    .paragraph("With a command it does one thing and exits, for scripts. Options may stand before or after the command. SECTION is a section id, or #N for the N-th section (0-based)."),
                ]),
                ("Commands", commandBlocks),
                ("Options", [.entries(commonOptions.map { entry($0.0, $0.1) })]),
                ("Environment", [.entries([
                    ManPage.Entry("FOLDSYNC_URL", "", "the daemon's WebSocket URL, or a comma list of them, when --url is not given"),
                    ManPage.Entry("FOLDSYNC_TOKEN", "", "the bearer token when --token is not given"),
                    ManPage.Entry("FOLDSYNC_TOKEN_COMMAND", "", "the token command when --token-command is not given"),
                ])]),
                ("Exit status", [.paragraph("0 done, 1 refused by the daemon or no connection (one line on standard error), 2 bad usage.")]),
                ("See also", [.paragraph("foldsyncd(8); /usr/share/doc/foldsync/README.md")]),
            ])
    }
}
