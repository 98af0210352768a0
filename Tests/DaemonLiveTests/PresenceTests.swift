import FoldCore
import FoldTestSupport
import Foundation
import Testing

/// Presence is coalesced: a crowd joining costs each viewer a few messages, not one per join.
/// Run on every event loop offered, held to the same bound: the presence timer is the hub's own
/// (since 8555708), not lws' timers, so no loop is an exception.
@Suite struct PresenceTests {
    @Test(arguments: ["libev", "libuv", "poll"])
    func thirtyClientsJoiningGetFewPresenceMessagesEndingAtThirty(eventLoop: String) throws {
        let d = try DaemonProcess(["--event-loop", eventLoop])
        defer { d.shutdown() }
        let clients = try (0..<30).map { _ in try d.connect() }
        for c in clients { try c.send(Wire.subscribe()) }
        var presence = [[Int]](repeating: [], count: clients.count)
        var snapshots = [Int](repeating: 0, count: clients.count)
        // Collect for 2 s, round-robin with short waits.
        let deadline = Date().addingTimeInterval(2)
        while Date() < deadline {
            for (i, c) in clients.enumerated() {
                while let text = try c.recvText(timeout: 0.005) {
                    let m = try JSONParser.parse(text)
                    if m.type == "presence" {
                        #expect(m["board"]?.stringValue == "default")
                        presence[i].append(try #require(m["viewers"]?.intValue))
                    } else if m.type == "snapshot" {
                        snapshots[i] += 1
                    }
                }
            }
        }
        // Then wait (bounded) for the count to settle at 30 everywhere.
        for (i, c) in clients.enumerated() where presence[i].last != 30 {
            let settle = Date().addingTimeInterval(3)
            while presence[i].last != 30, Date() < settle {
                guard let text = try c.recvText(timeout: max(0.01, settle.timeIntervalSinceNow)) else { break }
                let m = try JSONParser.parse(text)
                if m.type == "presence" { presence[i].append(try #require(m["viewers"]?.intValue)) }
            }
        }
        for i in clients.indices {
            #expect(snapshots[i] == 1, "client \(i)")
            #expect(presence[i].count <= 3, "client \(i) got \(presence[i].count) presence messages: \(presence[i])")
        }
        let settled = clients.indices.filter { presence[$0].last == 30 }.count
        #expect(settled == clients.count, "\(presence)")
    }
}
