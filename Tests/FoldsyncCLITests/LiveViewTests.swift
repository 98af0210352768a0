import FoldClient
import FoldTestSupport
import Foundation
import Glibc
import Testing

/// The live view in a real terminal (tmux), against the real daemon.
@Suite struct LiveViewTests {
    func live(_ d: DaemonProcess, width: Int = 60, height: Int = 16, board: String = "default") throws -> Tmux {
        try Tmux(width: width, height: height, command: "'\(Build.client)' --url \(d.url) --board \(board)")
    }

    @Test func aToggleTypedInTheViewReachesOtherClientsAndBack() throws {
        let d = try DaemonProcess()
        let t = try live(d)
        try t.waitFor("the board") { $0.first?.hasPrefix("default · connected · rev 0") == true && $0.contains("> ▸ 0") }
        try t.keys("Down", "Enter")
        #expect(eventually { (try? expanded(boardState(d))) == ["s1"] })
        try t.waitFor("s1 open") { $0.contains("> ▾ 1") && $0.contains("      222") }
        // The reverse: a change made elsewhere appears at once (accordion: s1 closes).
        #expect(try foldsync(["toggle", "s2", "--url", d.url]).status == 0)
        try t.waitFor("s2 open") { s in
            s.contains("  ▾ 2") && s.contains("      33333") && s.contains("> ▸ 1") && s.first?.contains("rev 2") == true
        }
        // j/k, Space, and the cursor stays on its section when one is added before it.
        #expect(try foldsync(["add-section", "New", "--at", "0", "--url", d.url]).status == 0)
        try t.waitFor("cursor kept on 1") { $0.contains("  ▸ New") && $0.contains("> ▸ 1") }
        try t.keys("k", "Space")
        #expect(eventually { (try? expanded(boardState(d))) == ["s0"] })
        try t.keys("q")
        try t.waitFor("exit") { !$0.contains { $0.contains("↑↓ move") } }
    }

    /// Through a relay that holds back what the daemon sends: the fold is
    /// on screen at the key press, before its patch and ack (the status
    /// line still says rev 0); a refused one is undone and the view says so.
    @Test func aFoldShowsOnTheKeyPressAndARefusedOneIsUndone() throws {
        let d = try DaemonProcess()
        let relay = try CuttingRelay(to: UInt16(d.port))
        defer { relay.stop() }
        let t = try Tmux(width: 60, height: 16, command: "'\(Build.client)' --url ws://127.0.0.1:\(relay.port)/ws --board default")
        try t.waitFor("the board") { $0.first?.hasPrefix("default · connected · rev 0") == true && $0.contains("> ▸ 0") }
        relay.holdAnswers()
        try t.keys("Down", "Enter")
        try t.waitFor("s1 open, no answer yet") { $0.contains("> ▾ 1") && $0.first?.hasPrefix("default · connected · rev 0") == true }
        #expect(eventually { (try? expanded(boardState(d))) == ["s1"] }, "the daemon has it")
        #expect(t.screen().first?.hasPrefix("default · connected · rev 0") == true, "and the view no answer")
        relay.releaseAnswers()
        try t.waitFor("confirmed at rev 1") { $0.first?.hasPrefix("default · connected · rev 1") == true && $0.contains("> ▾ 1") }
        // The cursor onto s2, which another client removes before the view hears of it.
        for _ in 0..<6 where !t.screen().contains("> ▸ 2") { try t.keys("Down") }
        try t.waitFor(text: "> ▸ 2")
        relay.holdAnswers()
        #expect(try foldsync(["remove-section", "s2", "--url", d.url]).status == 0)
        try t.keys("Enter")
        try t.waitFor("s2 shown open") { $0.contains("> ▾ 2") }
        relay.releaseAnswers()
        try t.waitFor("undone") { s in
            s.contains { $0.contains("not_found") && $0.contains("(undone)") } && !s.contains { $0.contains("▾ 2") || $0.contains("▸ 2") }
        }
        #expect(try expanded(boardState(d)) == ["s1"])
    }

    /// Through a relay that cuts the link at a fold: dropped before the
    /// daemon saw it, it is sent again after the reconnect; committed with
    /// its answer lost, it is sent again with its key and applied once.
    @Test func aFoldCutOffIsSentAgainAndAppliedOnce() throws {
        let d = try DaemonProcess()
        let relay = try CuttingRelay(to: UInt16(d.port))
        defer { relay.stop() }
        let t = try Tmux(width: 60, height: 16, command: "'\(Build.client)' --url ws://127.0.0.1:\(relay.port)/ws --board default")
        try t.waitFor("the board") { $0.first?.hasPrefix("default · connected · rev 0") == true && $0.contains("> ▸ 0") }
        relay.cutNext(.instead)
        try t.keys("Down", "Enter")
        try t.waitFor("s1 open, confirmed after the reconnect", seconds: 15) {
            $0.first?.hasPrefix("default · connected · rev 1") == true && $0.contains("> ▾ 1")
        }
        #expect(try expanded(boardState(d)) == ["s1"])
        relay.cutNext(.afterForwarding)
        try t.keys("Enter")
        try t.waitFor("s1 closed, confirmed after the reconnect", seconds: 15) {
            $0.first?.hasPrefix("default · connected · rev 2") == true && $0.contains("> ▸ 1")
        }
        #expect(try expanded(boardState(d)) == [])
        // Applied once: a second toggle would have made rev 3.
        usleep(500_000)
        let show = try foldsync(["show", "--json", "--url", d.url])
        #expect(show.stdout.contains("\"rev\":2"), "\(show.stdout)")
        #expect(t.screen().first?.hasPrefix("default · connected · rev 2") == true)
    }

    @Test func wideCharactersLineUpAndLongLinesAreCut() throws {
        setlocale(LC_ALL, "C.UTF-8")
        let d = try DaemonProcess()
        let long = String(repeating: "分组测试", count: 6)  // 24 characters, 48 columns
        let doc = """
        {"mode":"multi","sections":[
          {"id":"a","title":"\(long)","items":["项目一 end","ascii"],"expanded":true},
          {"id":"b","title":"🎉 party 🎉","items":[{"label":"絵文字 😀 label"}],"expanded":true},
          {"id":"c","title":"plain","items":[],"expanded":false}]}
        """
        #expect(try foldsync(["load", "-", "--board", "wide", "--url", d.url], stdin: doc).status == 0)
        let t = try live(d, width: 40, height: 12, board: "wide")
        try t.waitFor(text: "  ▸ plain")
        let s = t.screen()
        // Cut with … at the last whole character that fits: 4 + 17×2 + 1 = 39 columns.
        #expect(s[1] == "> ▾ " + String(long.prefix(17)) + "…")
        #expect(s[2] == "      项目一 end")
        #expect(s[3] == "      ascii")
        #expect(s[4] == "  ▾ 🎉 party 🎉")
        #expect(s[5] == "      絵文字 😀 label")
        #expect(s[6] == "  ▸ plain")
        // Nothing wider than the terminal, nothing wrapped onto another row.
        for row in s { #expect(DisplayWidth.of(row) <= 40, "\(row)") }
        #expect(s.count >= 12)
        // Resize: the cut follows the new width.
        try t.run(["resize-window", "-t", "tui", "-x", "30", "-y", "12"])
        try t.waitFor("narrower cut") { $0.count > 1 && $0[1] == "> ▾ " + String(long.prefix(12)) + "…" }
    }

    @Test func reconnectsAfterTheDaemonRestartsAndResumes() throws {
        let d = try DaemonProcess()
        #expect(try foldsync(["toggle", "s0", "--url", d.url]).status == 0)
        let t = try live(d)
        try t.waitFor("connected at rev 1") { $0.first?.hasPrefix("default · connected · rev 1") == true }
        // Past the open section's two items, onto the next header.
        try t.keys("Down", "Down", "Down")
        d.stop()
        try t.waitFor(text: "reconnecting")
        // Typed while offline: refused on screen, never sent later.
        try t.keys("Enter")
        try t.waitFor(text: "offline: toggle not sent")
        // The board stays on screen while offline, the cursor where it was.
        #expect(t.screen().contains("> ▸ 1"))
        try d.restart(samePort: true)
        try t.waitFor("connected again", seconds: 30) { $0.first?.hasPrefix("default · connected · rev 1") == true }
        // It resumed from its position (subscribe with `since`), not from a new snapshot.
        #expect(eventually { metric(d, "foldsync_resumes_total") == 1 })
        #expect(try expanded(boardState(d)) == ["s0"])
        #expect(try foldsync(["toggle", "s2", "--url", d.url]).status == 0)
        try t.waitFor("live again") { $0.contains("  ▾ 2") && $0.first?.contains("rev 2") == true && $0.contains("> ▸ 1") }
    }

    @Test func boardPickerHelpScrollingAndDaemonErrors() throws {
        let d = try DaemonProcess()
        var doc = #"{"mode":"multi","sections":["#
        doc += (0..<30).map { #"{"id":"n\#($0)","title":"Section \#($0)","items":["x"],"expanded":false}"# }.joined(separator: ",")
        doc += "]}"
        #expect(try foldsync(["load", "-", "--board", "long", "--url", d.url], stdin: doc).status == 0)
        let t = try live(d, width: 50, height: 10)
        try t.waitFor(text: "> ▸ 0")
        // A refusal from the daemon (expand-all in single mode) shows in the status line.
        try t.keys("e")
        try t.waitFor("the daemon's error") { $0.count > 8 && $0[8].hasPrefix("error: invalid") }
        // b: the board list; pick the long board.
        try t.keys("b")
        try t.waitFor(text: "  long")
        try t.keys("Down", "Enter")
        try t.waitFor("the long board") { $0.first?.hasPrefix("long · connected") == true && $0.contains("> ▸ Section 0") }
        // The window scrolls to keep the cursor visible: End shows the last section.
        try t.keys("End")
        try t.waitFor("scrolled to the end") { s in s.contains("> ▸ Section 29") && !s.contains("  ▸ Section 0") }
        try t.keys("PageUp")
        try t.waitFor("a page up") { s in s.contains { $0.hasPrefix("> ▸ Section 2") && $0 != "> ▸ Section 29" } }
        try t.keys("Home")
        try t.waitFor(text: "> ▸ Section 0")
        // ?: help, any key closes it.
        try t.keys("?")
        try t.waitFor(text: "move between sections")
        try t.keys("x")
        try t.waitFor(text: "> ▸ Section 0")
    }

    @Test func quitAndSIGTERMRestoreTheTerminalExactly() throws {
        let d = try DaemonProcess()
        let dir = d.directory.path
        for (n, how) in ["q", "C-c", "TERM"].enumerated() {
            let script = "stty -g > \(dir)/before\(n); sh -c 'echo $$ > \(dir)/pid\(n); exec \"\(Build.client)\" --url \(d.url)';"
                + " echo rc=$? > \(dir)/rc\(n); stty -g > \(dir)/after\(n); echo shell-is-back-\(n)"
            let t = try Tmux(width: 60, height: 12, command: "bash -c '\(script.replacingOccurrences(of: "'", with: "'\\''"))'; sleep 30")
            try t.waitFor(text: "connected")
            if how == "TERM" {
                let pid = try String(contentsOfFile: "\(dir)/pid\(n)", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
                #expect(kill(pid_t(pid) ?? 0, SIGTERM) == 0)
            } else {
                try t.keys(how)
            }
            try t.waitFor(text: "shell-is-back-\(n)")
            let before = try String(contentsOfFile: "\(dir)/before\(n)", encoding: .utf8)
            let after = try String(contentsOfFile: "\(dir)/after\(n)", encoding: .utf8)
            #expect(before == after, "\(how)")
            #expect(try String(contentsOfFile: "\(dir)/rc\(n)", encoding: .utf8) == "rc=0\n", "\(how)")
            // Back on the main screen: nothing of the view is left.
            #expect(!t.screen().contains { $0.contains("↑↓ move") }, "\(how)")
        }
    }
}
