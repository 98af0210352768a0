import FoldClient
import FoldTestSupport
import Foundation
import Testing

/// The shared focus and follow/browse (extensions): the scriptable commands,
/// and two live views in real terminals (tmux) against the real daemon.
@Suite struct FocusViewTests {
    static let doc = """
        {"mode":"single","sections":[
          {"id":"intro","title":"Intro","items":["first",{"label":"Docs","detail":"read me","href":"https://example.com/d","badge":"new","id":"docs"}],"expanded":true},
          {"id":"later","title":"Later","items":["x","y"],"expanded":false}]}
        """

    func live(_ d: DaemonProcess) throws -> Tmux {
        try Tmux(width: 70, height: 14, command: "'\(Build.client)' --url \(d.url)")
    }

    @Test func focusAndClearFocusCommandsAndShowMarksIt() throws {
        let d = try DaemonProcess()
        #expect(try foldsync(["load", "-", "--url", d.url], stdin: Self.doc).status == 0)
        // By id, into a collapsed section: it opens (and the accordion closes the other).
        let set = try foldsync(["focus", "later", "1", "--url", d.url, "--json"])
        #expect(set.status == 0, "\(set.stderr)")
        #expect(set.stdout.contains(#""focus":{"section":"later","item":1}"#), "\(set.stdout)")
        #expect(try expanded(boardState(d)) == ["later"])
        let byID = try foldsync(["focus", "intro", "docs", "--url", d.url])
        #expect(byID.status == 0 && byID.stdout.hasPrefix("focus intro item 1"), "\(byID.stdout)")
        let show = try foldsync(["show", "--url", d.url])
        #expect(show.stdout.contains("· focus intro item 1\n"))
        #expect(show.stdout.contains("  → Docs  [new]  <https://example.com/d>\n      read me\n"), "\(show.stdout)")
        let json = try boardState(d)
        #expect((json["focus"] as? [String: Any])?["item"] as? Int == 1)
        // Refusals: exit 1 with the daemon's code.
        let missing = try foldsync(["focus", "intro", "nope", "--url", d.url])
        #expect(missing.status == 1 && missing.stderr.contains("not_found"))
        let far = try foldsync(["focus", "intro", "5", "--url", d.url])
        #expect(far.status == 1 && far.stderr.contains("invalid"))
        #expect(try foldsync(["focus", "intro", "--url", d.url]).status == 2)
        let cleared = try foldsync(["clear-focus", "--url", d.url])
        #expect(cleared.status == 0 && cleared.stdout.hasPrefix("no focus"))
        #expect(try boardState(d)["focus"] == nil)
    }

    @Test func onePointsTheOtherFollowsThenBrowsesLocallyAndSnapsBack() throws {
        let d = try DaemonProcess()
        #expect(try foldsync(["load", "-", "--url", d.url], stdin: Self.doc).status == 0)
        let presenter = try live(d)
        let viewer = try live(d)
        for t in [presenter, viewer] {
            try t.waitFor("both connected") { $0.first?.contains("2 viewers (2 following)") == true && $0.contains("> ▾ Intro") }
        }
        // The presenter walks into the items and points at Docs.
        try presenter.keys("Down", "Down", "Enter")
        #expect(eventually { (try? boardState(d)["focus"] as? [String: Any])?["item"] as? Int == 1 })
        // The viewer's screen marks it, and its cursor follows onto it.
        try viewer.waitFor("the focus on the viewer") { s in
            s.contains("  > → Docs  [new]  <https://example.com/d> — read me")
        }
        // The viewer browses: the status line says so, the presenter sees one fewer following.
        try viewer.keys("f")
        try viewer.waitFor("browsing") { s in s.first?.contains("browsing") == true && s.contains { $0.contains("browsing on your own") } }
        try presenter.waitFor("one following") { $0.first?.contains("2 viewers (1 following)") == true }
        // It opens Later for itself: the accordion closes Intro on its screen only.
        try viewer.keys("Down", "Enter")
        try viewer.waitFor("a local fold") { $0.contains("> ▾ Later") && $0.contains("  ▸ Intro") && $0.contains("      x") }
        let presenterScreen = presenter.screen()
        #expect(presenterScreen.contains("  ▾ Intro") && presenterScreen.contains("  ▸ Later"), "\(presenterScreen)")
        #expect(try expanded(boardState(d)) == ["intro"], "nothing was sent")
        // The board's edits still reach the browsing screen, its folds stay.
        #expect(try foldsync(["set-title", "later", "Renamed", "--url", d.url]).status == 0)
        try viewer.waitFor("the edit arrives") { $0.contains("> ▾ Renamed") && $0.contains("  ▸ Intro") }
        try presenter.waitFor(text: "  ▸ Renamed")
        #expect(presenter.screen().contains("  ▾ Intro"))
        // Back to following: the board's folds and focus.
        try viewer.keys("f")
        try viewer.waitFor("snapped back") { s in
            s.first?.contains("following") == true && s.contains("  ▾ Intro") && s.contains("  ▸ Renamed")
                && s.contains("  > → Docs  [new]  <https://example.com/d> — read me")
        }
        try presenter.waitFor("two following again") { $0.first?.contains("2 viewers (2 following)") == true }
    }
}
