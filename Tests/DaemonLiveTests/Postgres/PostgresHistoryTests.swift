import FoldCore
import FoldTestSupport
import Foundation
import PostgresTestSupport
import Testing

/// History and revert on `--store postgresql://...`: the same records, read
/// back from PostgreSQL, and an undo applied as a new change.
@Suite struct PostgresHistoryTests {
    @Test func historyIsReadFromPostgreSQLAndARevertUndoesAChange() throws {
        let uri = try PostgresServer.shared().createDatabase()
        let d = try DaemonProcess(["--store", uri])
        defer { d.shutdown() }
        let c = try d.connect()
        _ = try c.subscribe()
        let base = try #require(try d.http("GET", "/api/boards/default").json().rev)
        #expect(try c.answer(Wire.action(.removeSection, id: "a", #""section":"s1""#), id: "a").rev == base + 1)
        #expect(try c.answer(Wire.action(.toggle, id: "b", #""section":"s0""#), id: "b").rev == base + 2)
        let h = try d.http("GET", "/api/boards/default/history?since=\(base)").json()
        let entries = try #require(h["entries"]?.arrayValue)
        #expect(entries.compactMap { $0["summary"]?.stringValue } == ["remove section s1 '1'", "toggle s0 → expanded '0'"])
        #expect(entries.allSatisfy { $0["actor"]?.stringValue == "anonymous" && ($0["at"]?.intValue ?? 0) > 0 })
        #expect(try c.answer(Wire.action(.revert, id: "r", #""rev":\#(base + 1)"#), id: "r").rev == base + 3)
        #expect(try d.http("GET", "/api/boards/default").json()["state"]?.sectionIDs == ["s0", "s1", "s2"])
        let logged = try PostgresServer.shared().psql(uri, "SELECT actor || ' ' || summary FROM foldsync_changes WHERE rev = \(base + 3)")
        #expect(logged == "anonymous undo rev \(base + 1) (remove section s1 '1')")
    }
}
