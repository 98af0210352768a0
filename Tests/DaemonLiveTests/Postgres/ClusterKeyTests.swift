import FoldCore
import FoldTestSupport
import Foundation
import PostgresTestSupport
import Testing

/// Keyed actions on three daemons sharing one PostgreSQL database: a key
/// accepted by one node is a repeat on every other, however soon the
/// repeat arrives, and it survives the database being all that is left.
@Suite struct ClusterKeyTests {
    @Test func aKeyAcceptedOnOneNodeIsARepeatOnTheOthers() throws {
        let uri = try PostgresServer.shared().createDatabase()
        let nodes = try (0..<3).map { _ in try DaemonProcess(["--store", uri]) }
        defer { nodes.forEach { $0.shutdown() } }
        for round in 0..<10 {
            let key = "cluster-\(round)"
            let body = #"{"type":"toggle","section":"s\#(round % 3)"}"#
            let first = try nodes[round % 3].http("POST", "/api/boards/default/actions", body: body, headers: [("Idempotency-Key", key)])
            #expect(first.status == 200, "\(first.text)")
            let rev = try #require(try first.json().rev)
            // At once, to the two others: one may not have followed the commit yet.
            for other in 1...2 {
                let again = try nodes[(round + other) % 3].http("POST", "/api/boards/default/actions", body: body, headers: [("Idempotency-Key", key)])
                #expect(again.status == 200 && again.text == #"{"rev":\#(rev),"duplicate":true}"#, "round \(round), node +\(other): \(again.text)")
            }
            #expect(try nodes[0].http("GET", "/api/boards/default").json().rev == rev, "round \(round)")
        }
        // The keys are the database's: a node started afresh knows them.
        let late = try DaemonProcess(["--store", uri])
        defer { late.shutdown() }
        let again = try late.http("POST", "/api/boards/default/actions", body: #"{"type":"toggle","section":"s0"}"#, headers: [("Idempotency-Key", "cluster-0")])
        #expect(again.text == #"{"rev":1,"duplicate":true}"#, "\(again.text)")
        #expect(try late.http("GET", "/api/boards/default").json().rev == 10)
    }
}
