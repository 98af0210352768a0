import FoldTestSupport
import Foundation
import Testing

/// `foldsync history` and `foldsync revert` against the real daemon, as the real binary.
@Suite struct HistoryCommandTests {
    @Test func historyPrintsOneLinePerChangeAndRevertUndoesOne() throws {
        let d = try DaemonProcess()
        #expect(try foldsync(["toggle", "s1", "--url", d.url]).status == 0)
        #expect(try foldsync(["set-title", "s0", "Today", "--url", d.url]).status == 0)
        let h = try foldsync(["history", "--url", d.url])
        #expect(h.status == 0, "\(h.stderr)")
        let lines = h.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 2, "\(h.stdout)")
        // rev 1  HH:MM:SS  anonymous  toggle s1 → expanded '1'
        let pattern = #/^rev 1  \d\d:\d\d:\d\d  anonymous  toggle s1 → expanded '1'$/#
        #expect(lines.first?.wholeMatch(of: pattern) != nil, "\(lines)")
        #expect(lines.last?.hasSuffix("anonymous  title of s0 '0' → 'Today'") == true, "\(lines)")

        let page = try foldsync(["history", "--limit", "1", "--url", d.url])
        #expect(page.stdout.hasPrefix("rev 2 ") && page.stdout.contains("(older changes: --before 2)"), "\(page.stdout)")
        let json = try foldsync(["history", "--since", "1", "--json", "--url", d.url])
        let body = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        #expect((body?["entries"] as? [[String: Any]])?.map { $0["rev"] as? Int } == [2])

        let r = try foldsync(["revert", "1", "--url", d.url])
        #expect(r.status == 0 && r.stdout == "undid rev 1 · rev 3\n", "\(r.stdout) \(r.stderr)")
        #expect(try expanded(boardState(d)) == [])
        let conflict = try foldsync(["revert", "1", "--url", d.url])
        #expect(conflict.status == 1 && conflict.stderr.contains("conflict") && conflict.stderr.contains("rev 3"), "\(conflict.stderr)")

        let bad = try foldsync(["history", "--since", "1", "--before", "2", "--url", d.url])
        #expect(bad.status == 2)
        #expect(try foldsync(["revert", "x", "--url", d.url]).status == 2)
        #expect(try foldsync(["toggle", "s1", "--limit", "3", "--url", d.url]).status == 2)
    }
}
