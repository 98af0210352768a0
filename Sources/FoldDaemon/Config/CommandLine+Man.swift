import FoldConfig
import FoldCore
import FoldHub

extension DaemonCommand {
    /// foldsyncd(8), from the option table and the command lists `--help`
    /// prints; `foldsyncd --man` writes it and `make deb` installs it.
    public static var manPage: ManPage {
        let options = OptionTable.options.map { ManPage.Entry("--\($0.key)", $0.value, optionHelp($0)) }
            + commandFlags.map { ManPage.Entry($0.flag, $0.value, $0.help) }
        let commands = subcommands.map { c -> ManPage.Entry in
            let words = c.usage.split(separator: " ", maxSplits: 1).map(String.init)
            return ManPage.Entry(words[0], words.count > 1 ? words[1] : "", c.help)
        }
        return ManPage(
            name: "foldsyncd", section: 8, summary: "shared collapsible-section boards over WebSocket",
            source: "foldsync \(DaemonVersion.string)", manual: "System Administration",
            sections: [
                ("Synopsis", [.lines(["foldsyncd [options]"] + subcommands.map { "foldsyncd \($0.usage)" })]),
                ("Description", [
                    .paragraph("foldsyncd holds boards of collapsible sections (accordion or multi mode) and broadcasts every expand, collapse and edit as a JSON Patch over WebSockets at /ws (subprotocol foldsync.v1), with an HTTP API under /api and a live dashboard at / on the same port. Every change is committed to the store before anyone sees it."),
                    .paragraph(sourcesText),
                ]),
                ("Options", [.entries(options)]),
                ("Commands", [.entries(commands)]),
                ("Files", [.entries([
                    ManPage.Entry(ConfigSources.defaultFile, "", "the configuration file, read when it exists (key = value; # starts a comment)"),
                    ManPage.Entry("/var/lib/foldsync/foldsync.db", "", "the SQLite store under systemd (StateDirectory=foldsync, handed over as $STATE_DIRECTORY)"),
                    ManPage.Entry("/usr/share/foldsync/web", "", "the dashboard's files; without web-root the daemon also looks beside its executable (../share/foldsync/web, a build tree's clients/web) and logs which folder it serves"),
                ])]),
                ("Environment", [.entries([
                    ManPage.Entry("FOLDSYNC_KEY", "", "any option, as FOLDSYNC_ and the key in capitals with dashes as underscores (FOLDSYNC_LOG_LEVEL=debug)"),
                    ManPage.Entry("STATE_DIRECTORY", "", "set by systemd: the store defaults to $STATE_DIRECTORY/foldsync.db"),
                    ManPage.Entry("NOTIFY_SOCKET", "", "set by systemd (Type=notify): readiness, status and the watchdog"),
                ])]),
                ("Signals", [.entries([
                    ManPage.Entry("SIGTERM, SIGINT", "", "stop accepting, finish pending commits, close every client with 1001, checkpoint and close the store, exit 0 (bounded by shutdown-timeout)"),
                    ManPage.Entry("SIGHUP", "", "re-read the configuration; options marked restart to change keep their value"),
                ])]),
                ("Exit status", [.paragraph("0 after a clean stop or a valid configuration (--check-config); 1 when the store or the listening socket cannot be opened; 2 for a bad option or configuration, or a SQLite store another foldsyncd holds (its pid in the message), with the reason on standard error.")]),
                ("See also", [.paragraph("foldsync(1), systemctl(1); /usr/share/doc/foldsync/README.md and OPERATIONS.md")]),
            ])
    }
}
