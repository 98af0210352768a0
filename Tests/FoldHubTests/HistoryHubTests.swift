import FoldCore
import FoldCrypto
import Testing
@testable import FoldHub

/// History in the hub: records made at accept time, reads handed off the
/// event loop (never a store call in the hub), bounded, waited for at shutdown.
@Suite struct HistoryHubTests {
    func body(_ r: HubResponse?) -> JSON? { r.flatMap { try? JSONParser.parse($0.body) } }
    func post(_ h: HubHarness, _ id: UInt64, _ action: String) {
        h.feed(.http(HubRequest(id: id, method: "POST", path: "/api/boards/default/actions", body: Array(action.utf8))))
    }

    @Test func eachCommittedChangeCarriesItsRecordAndTheBatchItsRetention() throws {
        let h = HubHarness { $0.retention.historyDays = 2 }
        post(h, 1, #"{"type":"toggle","section":"s1"}"#)
        let batch = try #require(h.commits.first)
        #expect(batch.keepMs == 2 * 86_400_000)
        let record = try #require(batch.changes.first?.record?.record())
        #expect(record.actor == "anonymous" && record.session == "http")
        #expect(record.summary == "toggle s1 → expanded '1'")
        #expect(text(record.action) == #"{"type":"toggle","section":"s1"}"#)
        // A fold is a change of fields: its undo is stored compact, and read back as the full inverse.
        #expect(FieldUndo.isCompact(record.inverse))
        let ops = try #require(batch.changes.first?.ops)
        let inverse = try #require(FieldUndo.inverse(stored: record.inverse, forward: ops))
        let after = try #require(h.hub.board("default")?.head)
        #expect(try after.patched(with: inverse) == .initial)
    }

    @Test func aHistoryReadIsAnEffectAnsweredLaterAndBounded() {
        let h = HubHarness()
        h.autoCommit = true
        h.holdReads = true
        post(h, 1, #"{"type":"toggle","section":"s1"}"#)
        h.feed(.http(HubRequest(id: 2, method: "GET", path: "/api/boards/default/history", query: "limit=5")))
        #expect(h.responses[2] == nil && h.heldReads.count == 1)
        #expect(h.heldReads.first?.query == HistoryQuery(.latest, limit: 6))
        for i in 0..<(Hub.maxPendingReads + 1) {
            h.feed(.http(HubRequest(id: 100 + UInt64(i), method: "GET", path: "/api/boards/default/history")))
        }
        #expect(h.responses[100 + UInt64(Hub.maxPendingReads)]?.status == 503)
        h.finishReads()
        #expect(h.responses[2]?.status == 200 && body(h.responses[2])?["entries"]?.arrayValue?.count == 1)
        h.feed(.http(HubRequest(id: 3, method: "GET", path: "/api/boards/default/history", query: "since=x")))
        #expect(h.responses[3]?.status == 400)
    }

    @Test func aShutdownWaitsForReadsInFlight() {
        let h = HubHarness()
        h.holdReads = true
        h.feed(.http(HubRequest(id: 2, method: "GET", path: "/api/boards/default/history")))
        h.feed(.stop)
        #expect(!h.effects.contains { if case .stopServer = $0 { return true }; return false })
        h.finishReads()
        #expect(h.responses[2]?.status == 200)
        #expect(h.effects.contains { if case .stopServer = $0 { return true }; return false })
    }

    @Test func aRevertReadsTheHistoryThenCommitsTheUndo() throws {
        let h = HubHarness()
        h.autoCommit = true
        post(h, 1, #"{"type":"setTitle","section":"s2","title":"x"}"#)
        h.holdReads = true
        post(h, 2, #"{"type":"revert","rev":1}"#)
        #expect(h.responses[2] == nil && h.heldReads.first?.skeletonsAfterFirst == true)
        h.finishReads()
        #expect(h.responses[2]?.status == 200 && body(h.responses[2])?.rev == 2)
        #expect(h.hub.board("default")?.committed == .initial)
        let record = try #require(h.store.changes.last?.record)
        #expect(record.summary == "undo rev 1 (title of s2 '2' → 'x')")
    }

    /// "It needs the permission the original action needed": an editor
    /// without `fold` undoes an edit, an admin-only token a replace; a
    /// token with no write permission is refused before anything is read.
    @Test func aRevertNeedsOnlyWhatTheUndoneActionNeeded() throws {
        let secrets = ["writer": "w-secret", "boss": "b-secret", "viewer": "v-secret"]
        let h = HubHarness { c in
            let hex = { (s: String) in OpenSSLDigest().hex(Array(s.utf8)) }
            c.access.tokens = [try! AccessToken.parse("writer read,edit \(hex("w-secret"))").get(),
                               try! AccessToken.parse("boss admin \(hex("b-secret"))").get(),
                               try! AccessToken.parse("viewer read \(hex("v-secret"))").get()]
        }
        h.autoCommit = true
        func post(_ id: UInt64, _ token: String, _ action: String) -> HubResponse? {
            h.feed(.http(HubRequest(id: id, method: "POST", path: "/api/boards/default/actions",
                                    headers: ["authorization": "Bearer \(secrets[token]!)"], body: Array(action.utf8))))
            h.finishReads()
            return h.responses[id]
        }
        #expect(post(1, "writer", #"{"type":"setTitle","section":"s2","title":"x"}"#)?.status == 200)
        let undo = post(2, "writer", #"{"type":"revert","rev":1}"#)
        #expect(undo?.status == 200, "\(undo.map { text($0.body) } ?? "")")
        #expect(post(3, "boss", #"{"type":"replace","state":{"mode":"multi","sections":[]}}"#)?.status == 200)
        #expect(post(4, "writer", #"{"type":"revert","rev":3}"#)?.status == 403)
        #expect(post(5, "boss", #"{"type":"revert","rev":3}"#)?.status == 200)
        h.holdReads = true
        h.feed(.http(HubRequest(id: 6, method: "POST", path: "/api/boards/default/actions",
                                headers: ["authorization": "Bearer v-secret"], body: Array(#"{"type":"revert","rev":4}"#.utf8))))
        #expect(h.responses[6]?.status == 403)
        #expect(h.heldReads.isEmpty, "a token that may change nothing costs no read")
    }
}

func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }
