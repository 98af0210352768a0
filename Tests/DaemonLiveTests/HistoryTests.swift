import FoldCore
import FoldTestSupport
import Foundation
import Glibc
import Testing

/// The history over HTTP from a live daemon: who (token or anonymous, and
/// the session), when, what in words, paging, limits and bad parameters;
/// pruning by age with a short history-days.
@Suite struct HistoryTests {
    func history(_ d: DaemonProcess, _ query: String = "", headers: [(String, String)] = []) throws -> JSON {
        let r = try d.http("GET", "/api/boards/default/history" + query, headers: headers)
        guard r.status == 200 else { throw HarnessError("history\(query): \(r.status) \(r.text)") }
        return try r.json()
    }

    func revs(_ h: JSON) -> [Int] { (h["entries"]?.arrayValue ?? []).compactMap(\.rev) }

    @Test func anonymousChangesOverWebSocketAndHTTPAreRecordedWithWhoWhenAndWhat() throws {
        let d = try DaemonProcess()
        defer { d.shutdown() }
        let c = try d.connect()
        _ = try c.subscribe()
        let before = Int(Date().timeIntervalSince1970 * 1000)
        #expect(try c.answer(Wire.action(.toggle, id: "t", #""section":"s1""#), id: "t").rev == 1)
        let r = try d.http("POST", "/api/boards/default/actions", body: #"{"type":"setTitle","section":"s0","title":"Today"}"#)
        #expect(r.status == 200, "\(r.text)")
        let h = try history(d)
        #expect(h["board"]?.stringValue == "default" && h.rev == 2 && h["more"]?.boolValue == false)
        let entries = try #require(h["entries"]?.arrayValue)
        #expect(entries.count == 2)
        let ws = entries[0], web = entries[1]
        #expect(ws.rev == 1 && ws["actor"]?.stringValue == "anonymous" && ws["session"]?.stringValue?.hasPrefix("c") == true)
        #expect(ws["summary"]?.stringValue == "toggle s1 → expanded '1'")
        let asked = try JSONParser.parse(#"{"type":"toggle","section":"s1"}"#)
        #expect(ws["action"] == asked)
        #expect(ws["ops"]?.arrayValue?.count == 1 && ws["inverse"]?.arrayValue?.isEmpty == false)
        let at = try #require(ws["at"]?.intValue)
        #expect(at >= before - 1_000 && at <= Int(Date().timeIntervalSince1970 * 1000) + 1_000, "at \(at)")
        #expect(web["session"]?.stringValue == "http" && web["summary"]?.stringValue == "title of s0 '0' → 'Today'")
    }

    @Test func tokensNameTheActorAndReadingNeedsReadPermission() throws {
        let d = try DaemonProcess(Tokens.flags)
        defer { d.shutdown() }
        let c = try d.connect(headers: Tokens.bearer(Tokens.folder))
        #expect(try c.answer(Wire.action(.toggle, id: "t", #""section":"s1""#), id: "t").rev == 1)
        let r = try d.http("POST", "/api/boards/default/actions", body: #"{"type":"setTitle","section":"s0","title":"x"}"#,
                           headers: Tokens.bearer(Tokens.editor))
        #expect(r.status == 200, "\(r.text)")
        let raw = try d.http("GET", "/api/boards/default/history", headers: Tokens.bearer(Tokens.reader))
        #expect(!raw.text.contains("secret"), "a secret in the history")
        let h = try raw.json()
        let actors = (h["entries"]?.arrayValue ?? []).map { "\($0["actor"]?.stringValue ?? "") \($0["session"]?.stringValue ?? "")" }
        #expect(actors.count == 2 && actors[0].hasPrefix("folder c") && actors[1] == "editor http", "\(actors)")
        #expect(try d.http("GET", "/api/boards/default/history").status == 401)
        // ops-* boards only: no read on 'default'.
        #expect(try d.http("GET", "/api/boards/default/history", headers: Tokens.bearer(Tokens.ops)).status == 403)
    }

    @Test func pagingForwardAndBackwardWithLimitsAndClearRefusals() throws {
        let d = try DaemonProcess()
        defer { d.shutdown() }
        for i in 0..<7 {
            let r = try d.http("POST", "/api/boards/default/actions", body: #"{"type":"setTitle","section":"s0","title":"t\#(i)"}"#)
            #expect(r.status == 200)
        }
        #expect(revs(try history(d)) == Array(1...7))
        let latest = try history(d, "?limit=3")
        #expect(revs(latest) == [5, 6, 7] && latest["more"]?.boolValue == true)
        #expect(revs(try history(d, "?before=5&limit=3")) == [2, 3, 4])
        let oldest = try history(d, "?before=3&limit=3")
        #expect(revs(oldest) == [1, 2] && oldest["more"]?.boolValue == false)
        let forward = try history(d, "?since=2&limit=2")
        #expect(revs(forward) == [3, 4] && forward["more"]?.boolValue == true)
        let end = try history(d, "?since=5")
        #expect(revs(end) == [6, 7] && end["more"]?.boolValue == false)
        #expect(revs(try history(d, "?since=7")) == [])

        for (query, words) in [("?limit=0", "limit must be 1...1000"), ("?limit=1001", "limit must be 1...1000"),
                               ("?since=abc", "'since' must be a non-negative integer"), ("?since=1&before=3", "not both"),
                               ("?after=3", "unknown parameter 'after'"), ("?limit=2&limit=3", "given twice")] {
            let r = try d.http("GET", "/api/boards/default/history" + query)
            #expect(r.status == 400, "\(query): \(r.status)")
            #expect(r.text.contains("bad_request") && r.text.contains(words), "\(query): \(r.text)")
        }
        #expect(try d.http("GET", "/api/boards/nope/history").status == 404)
    }

    /// history-per-board 2 and history-days of about 1.7 s: young changes stay
    /// past the count; once old, all but the last two go, in the next commit.
    @Test func oldChangesArePrunedInTheCommitButTheLastFewStay() throws {
        let d = try DaemonProcess(["--history-per-board", "2", "--history-days", "0.00002"])
        defer { d.shutdown() }
        for i in 0..<3 {
            #expect(try d.http("POST", "/api/boards/default/actions", body: #"{"type":"setTitle","section":"s0","title":"a\#(i)"}"#).status == 200)
        }
        #expect(revs(try history(d)) == [1, 2, 3])
        usleep(2_200_000)
        #expect(revs(try history(d)) == [1, 2, 3], "pruned without a commit")
        #expect(try d.http("POST", "/api/boards/default/actions", body: #"{"type":"setTitle","section":"s0","title":"b"}"#).status == 200)
        #expect(revs(try history(d)) == [3, 4])
    }

    /// history-days is live: after a SIGHUP lowering it to 0, the next commit
    /// keeps only the last history-per-board changes.
    @Test func historyDaysIsReloadable() throws {
        let d = try DaemonProcess(["--history-per-board", "2"], config: "history-days = 30\n")
        defer { d.shutdown() }
        for i in 0..<3 {
            #expect(try d.http("POST", "/api/boards/default/actions", body: #"{"type":"setTitle","section":"s0","title":"a\#(i)"}"#).status == 200)
        }
        #expect(revs(try history(d)) == [1, 2, 3])
        let mark = d.logMark
        try d.writeConfig("history-days = 0\n")
        d.signal(SIGHUP)
        #expect(d.waitForLog("configuration reloaded", after: mark), "\(d.log(after: mark))")
        #expect(d.log(after: mark).contains("history-days 30 -> 0"), "\(d.log(after: mark))")
        #expect(try d.http("POST", "/api/boards/default/actions", body: #"{"type":"setTitle","section":"s0","title":"b"}"#).status == 200)
        #expect(revs(try history(d)) == [3, 4])
    }
}
