import FoldCore
import FoldTestSupport
import Foundation
import Testing

/// The daemon starts from the store's catalog: a board's document is read
/// when a client first uses it and let go once nobody has used it for
/// `board-idle` seconds, its action keys kept. Real daemon, real SQLite file.
@Suite struct BoardResidencyLiveTests {
    /// A board of `sections` sections, each with two items.
    static func document(sections: Int) -> String {
        let list = (0..<sections).map { #"{"id":"s\#($0)","title":"section \#($0)","items":["a\#($0)","b\#($0)"],"expanded":false}"# }
        return #"{"mode":"single","sections":[\#(list.joined(separator: ","))]}"#
    }

    static func gauge(_ d: DaemonProcess, _ name: String) throws -> Double? {
        metric(name, in: try d.http("GET", "/metrics").text)
    }

    @Test func aBoardIsReadOnFirstUseLetGoWhenUnusedAndItsKeysOutliveIt() throws {
        let d = try DaemonProcess(["--board-idle", "1"])
        defer { d.shutdown() }
        let doc = Self.document(sections: 200)
        for i in 0..<20 {
            let put = try d.http("PUT", "/api/boards/b\(i)", body: doc)
            #expect(put.status == 200 || put.status == 201, "\(put.status) \(put.text)")
        }
        #expect(d.stop() == 0)
        try d.restart()

        #expect(try Self.gauge(d, "foldsync_boards") == 21)
        #expect(try Self.gauge(d, "foldsync_boards_in_memory") == 0, "nothing is read at start")
        let list = try d.http("GET", "/api/boards").json()["boards"]?.arrayValue ?? []
        #expect(list.count == 21 && list.allSatisfy { $0["rev"]?.intValue == 0 }, "\(list.prefix(3))")

        let c = try d.connect()
        let snap = try c.subscribe("b7")
        #expect(snap["state"]?["sections"]?.arrayValue?.count == 200)
        #expect(try Self.gauge(d, "foldsync_boards_in_memory") == 1)
        let toggle = Wire.action(.toggle, board: "b7", id: "t1", #""section":"s5","key":"live-1""#)
        let first = try c.answer(toggle, id: "t1")
        #expect(first.type == "ack" && first.rev == 1, "\(first)")
        try c.send(#"{"type":"unsubscribe","board":"b7"}"#)

        // Unwatched and unused: let go after about a second.
        #expect(try eventually(timeout: 15) { try Self.gauge(d, "foldsync_boards_in_memory") == 0 }, "the board stayed in memory")
        #expect(try Self.gauge(d, "foldsync_boards_unloaded_total") == 1)
        let head = try d.http("GET", "/api/boards").json()["boards"]?.arrayValue?.first { $0["board"]?.stringValue == "b7" }
        #expect(head?["rev"]?.intValue == 1, "its position is kept: \(String(describing: head))")

        // The repeat reads the board again and is answered, not applied.
        let again = try c.answer(toggle.replacingOccurrences(of: "t1", with: "t2"), id: "t2")
        #expect(again.type == "ack" && again.rev == 1 && again["duplicate"]?.boolValue == true, "\(again)")
        let state = try d.http("GET", "/api/boards/b7").json()
        #expect(state["rev"]?.intValue == 1 && state["state"]?.expandedIDs == ["s5"], "\(state)")
        #expect(try Self.gauge(d, "foldsync_board_reads_total") == 2)

        // And after a restart, from the store.
        #expect(d.stop() == 0)
        try d.restart()
        let fresh = try d.connect()
        let third = try fresh.answer(toggle.replacingOccurrences(of: "t1", with: "t3"), id: "t3")
        #expect(third.type == "ack" && third.rev == 1 && third["duplicate"]?.boolValue == true, "\(third)")
    }

    @Test func residentMemoryDoesNotGrowWithBoardsNobodyUses() throws {
        let d = try DaemonProcess(["--max-boards", "1000"])
        defer { d.shutdown() }
        // The empty store's daemon, as it starts.
        #expect(d.stop() == 0)
        try d.restart()
        let empty = try d.residentKB()

        let doc = Self.document(sections: 1000)
        for i in 0..<120 {
            #expect(try d.http("PUT", "/api/boards/big\(i)", body: doc).status < 300)
        }
        #expect(d.stop() == 0)
        try d.restart()
        #expect(try Self.gauge(d, "foldsync_boards") == 121)
        let full = try d.residentKB()
        // Read at start, 120 boards of 1,000 sections held ≈ 45 MiB.
        #expect(full - empty < 12 * 1024, "\(empty) kB on an empty store, \(full) kB with 120 unwatched boards of 1,000 sections")

        // A client that reads one board holds one in memory.
        #expect(try d.http("GET", "/api/boards/big3").status == 200)
        #expect(try Self.gauge(d, "foldsync_boards_in_memory") == 1)
    }
}
