import FoldTestSupport
import Foundation
import Testing

/// Every scriptable command against the real daemon, run as the real binary.
@Suite struct CommandTests {
    @Test func showPrintsTheTreeAndJSON() throws {
        let d = try DaemonProcess()
        let text = try foldsync(["show", "--url", d.url])
        #expect(text.status == 0)
        #expect(text.stdout == "board default · rev 0 · single\n▸ s0  0\n▸ s1  1\n▸ s2  2\n")
        let state = try boardState(d)
        #expect(state["mode"] as? String == "single")
        #expect(sections(state).map { $0["id"] as? String } == ["s0", "s1", "s2"])
    }

    @Test func toggleExpandCollapseByIdAndIndex() throws {
        let d = try DaemonProcess()
        let t = try foldsync(["toggle", "s1", "--url", d.url])
        #expect(t.status == 0)
        #expect(t.stdout == "s1 expanded · rev 1\n")
        #expect(try expanded(boardState(d)) == ["s1"])
        // Options before the command, #N, and the accordion rule.
        let e = try foldsync(["--url", d.url, "--json", "expand", "#2"])
        #expect(e.status == 0)
        let ack = try JSONSerialization.jsonObject(with: Data(e.stdout.utf8)) as? [String: Any]
        #expect(ack?["section"] as? String == "s2")
        #expect(ack?["expanded"] as? Bool == true)
        #expect(ack?["rev"] as? Int == 2)
        #expect(try expanded(boardState(d)) == ["s2"])
        #expect(try foldsync(["collapse", "s2", "--url", d.url]).status == 0)
        #expect(try expanded(boardState(d)) == [])
        // A no-op is acknowledged at the current rev.
        let again = try foldsync(["collapse", "s2", "--url", d.url])
        #expect(again.status == 0)
        #expect(again.stdout == "s2 collapsed · rev 3\n")
    }

    @Test func modeAndAllSections() throws {
        let d = try DaemonProcess()
        let refused = try foldsync(["expand-all", "--url", d.url])
        #expect(refused.status == 1)
        #expect(refused.stderr.hasPrefix("foldsync: invalid:"))
        #expect(refused.stderr.split(separator: "\n").count == 1)
        let mode = try foldsync(["mode", "multi", "--url", d.url])
        #expect(mode.status == 0)
        #expect(mode.stdout == "mode multi · rev 1\n")
        #expect(try foldsync(["expand-all", "--url", d.url]).status == 0)
        #expect(try expanded(boardState(d)) == ["s0", "s1", "s2"])
        #expect(try foldsync(["mode", "single", "--url", d.url]).status == 0)
        #expect(try expanded(boardState(d)) == ["s0"])
        #expect(try foldsync(["collapse-all", "--url", d.url]).status == 0)
        let state = try boardState(d)
        #expect(expanded(state) == [])
        #expect(state["mode"] as? String == "single")
    }

    @Test func editingSections() throws {
        let d = try DaemonProcess()
        let added = try foldsync(["add-section", "Alpha", "--items", "a,b", "--url", d.url])
        #expect(added.status == 0)
        #expect(added.stdout == "s3\n")
        let withID = try foldsync(["--url", d.url, "add-section", "--id", "top", "--at", "0", "Top", "--json"])
        #expect(withID.status == 0)
        #expect(withID.stdout.contains("\"section\":\"top\""))
        var state = try boardState(d)
        #expect(sections(state).map { $0["id"] as? String } == ["top", "s0", "s1", "s2", "s3"])
        #expect(sections(state)[4]["items"] as? [String] == ["a", "b"])

        #expect(try foldsync(["move-section", "top", "4", "--url", d.url]).status == 0)
        #expect(try foldsync(["set-title", "#0", "Zero", "--url", d.url]).status == 0)
        #expect(try foldsync(["set-items", "s1", "x", "y z", "--url", d.url]).status == 0)
        #expect(try foldsync(["remove-section", "s2", "--url", d.url]).status == 0)
        state = try boardState(d)
        #expect(sections(state).map { $0["id"] as? String } == ["s0", "s1", "s3", "top"])
        #expect(sections(state)[0]["title"] as? String == "Zero")
        #expect(sections(state)[1]["items"] as? [String] == ["x", "y z"])
        // Unicode titles go through intact.
        #expect(try foldsync(["set-title", "s3", "分组 🎉", "--url", d.url]).status == 0)
        #expect(sections(try boardState(d))[2]["title"] as? String == "分组 🎉")
    }

    @Test func loadAndDump() throws {
        let d = try DaemonProcess()
        let doc = #"{"mode":"multi","sections":[{"id":"a","title":"A","items":["1",{"label":"two","x":1}],"expanded":true}]}"#
        let file = d.directory.appendingPathComponent("board.json")
        try doc.write(to: file, atomically: true, encoding: .utf8)
        let loaded = try foldsync(["load", file.path, "--board", "fresh", "--url", d.url])
        #expect(loaded.status == 0)
        #expect(loaded.stdout == "loaded fresh · rev 0\n")
        let dumped = try foldsync(["dump", "--board", "fresh", "--url", d.url])
        #expect(dumped.status == 0)
        #expect(dumped.stdout == doc + "\n")
        // stdin, replacing an existing board.
        let replaced = try foldsync(["load", "-", "--url", d.url], stdin: doc)
        #expect(replaced.status == 0)
        #expect(try foldsync(["dump", "--url", d.url]).stdout == doc + "\n")
        let show = try foldsync(["show", "--url", d.url])
        #expect(show.stdout == "board default · rev 1 · multi\n▾ a  A\n    1\n    two\n")
        // Not a board document: refused before connecting.
        let bad = try foldsync(["load", "-", "--url", d.url], stdin: #"{"mode":"x"}"#)
        #expect(bad.status == 1)
        #expect(bad.stderr.hasPrefix("foldsync: -: not a board document"))
    }

    @Test func boardsListsEveryBoard() throws {
        let d = try DaemonProcess()
        let doc = #"{"mode":"single","sections":[]}"#
        #expect(try foldsync(["load", "-", "--board", "b2", "--url", d.url], stdin: doc).status == 0)
        let text = try foldsync(["boards", "--url", d.url])
        #expect(text.status == 0)
        #expect(text.stdout == "b2  rev 0\ndefault  rev 0\n")
        let json = try foldsync(["boards", "--json", "--url", d.url])
        let obj = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        let names = (obj?["boards"] as? [[String: Any]])?.compactMap { $0["board"] as? String }
        #expect(names == ["b2", "default"])
    }

    @Test func urlAndTokenFromTheEnvironment() throws {
        let d = try DaemonProcess()
        let r = try foldsync(["show"], environment: ["FOLDSYNC_URL": d.url, "FOLDSYNC_TOKEN": "secret"])
        #expect(r.status == 0)
        #expect(r.stdout.hasPrefix("board default"))
        #expect(try foldsync(["toggle", "s0", "--token", "t0k"], environment: ["FOLDSYNC_URL": d.url]).status == 0)
    }

    @Test func refusedActionsExitOne() throws {
        let d = try DaemonProcess()
        for args in [["toggle", "nope"], ["remove-section", "#9"], ["move-section", "s0", "7"],
                     ["show", "--board", "missing"], ["toggle", "s0", "--board", "missing"]] {
            let r = try foldsync(args + ["--url", d.url])
            #expect(r.status == 1, "\(args)")
            #expect(r.stderr.hasPrefix("foldsync: "), "\(args)")
            #expect(r.stderr.split(separator: "\n").count == 1, "\(args)")
            #expect(r.stdout.isEmpty, "\(args)")
        }
    }

    /// A wrong token is refused at the upgrade (401): said once, exit 1.
    @Test func aWrongTokenIsRefusedAndSaidSo() throws {
        // The SHA-256 of "right-secret".
        let d = try DaemonProcess(["--token", "reader read 01afeb749bfa8234a4afbb454d57425a2d85edb73eed1eb6cff9c73ff3ede3be"])
        let r = try foldsync(["show", "--url", d.url, "--token", "wrong-secret"])
        #expect(r.status == 1)
        #expect(r.stderr.contains("token refused (HTTP 401)"), "\(r.stderr)")
        #expect(try foldsync(["show", "--url", d.url, "--token", "right-secret"]).status == 0)
    }

    @Test func daemonDownExitsOne() throws {
        let d = try DaemonProcess()
        let url = d.url
        d.stop()
        for args in [["show"], ["toggle", "s0"], ["boards"], ["watch"]] {
            let r = try foldsync(args + ["--url", url])
            #expect(r.status == 1, "\(args)")
            #expect(r.stderr.hasPrefix("foldsync: ws://127.0.0.1:"), "\(args)")
            #expect(r.stderr.split(separator: "\n").count == 1, "\(args)")
        }
    }

    @Test func badUsageExitsTwo() throws {
        for args in [["frobnicate"], ["toggle"], ["toggle", "a", "b"], ["mode", "double"], ["move-section", "s0", "x"],
                     ["show", "--nope"], ["show", "--url"], ["show", "--board", "bad name"], ["toggle", "s0", "--at", "1"],
                     ["add-section", "T", "--at", "-1"], ["show", "--url", "ftp://x/"], ["set-items"], ["show", "--timeout", "0"]] {
            let r = try foldsync(args)
            #expect(r.status == 2, "\(args)")
            #expect(r.stderr.hasPrefix("foldsync: "), "\(args)")
            #expect(r.stderr.split(separator: "\n").count == 1, "\(args)")
        }
        // No command and no terminal: the live view cannot start.
        #expect(try foldsync([]).status == 2)
    }

    @Test func helpForEveryCommand() throws {
        let general = try foldsync(["--help"])
        #expect(general.status == 0)
        for name in ["boards", "show", "toggle", "expand", "collapse", "expand-all", "collapse-all", "mode",
                     "add-section", "remove-section", "move-section", "set-title", "set-items", "load", "dump", "watch"] {
            #expect(general.stdout.contains("  \(name)"), "\(name)")
            let r = try foldsync([name, "--help"])
            #expect(r.status == 0, "\(name)")
            #expect(r.stdout.hasPrefix("usage: foldsync [OPTIONS] \(name)"), "\(name)")
            #expect(try foldsync(["-h", name]).stdout == r.stdout)
        }
    }
}
