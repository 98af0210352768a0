import FoldCore
import FoldCrypto
import Testing
@testable import FoldHub

/// The HTTP API goes through the same pipeline as the WebSocket: answered
/// once committed, refused with the contract's status.
@Suite struct HTTPTests {
    func body(_ r: HubResponse?) -> JSON? { r.flatMap { try? JSONParser.parse($0.body) } }

    @Test func aPostedActionIsAnsweredWithItsRevOnceCommitted() {
        let h = HubHarness()
        h.feed(.http(HubRequest(id: 7, method: "POST", path: "/api/boards/default/actions", body: Array(#"{"type":"toggle","section":"s0"}"#.utf8))))
        #expect(h.responses[7] == nil && h.commits.count == 1)
        h.finishCommits()
        #expect(h.responses[7]?.status == 200 && body(h.responses[7])?.rev == 1)
    }

    @Test func refusalsCarryTheirStatus() {
        let h = HubHarness()
        h.feed(.http(HubRequest(id: 1, method: "POST", path: "/api/boards/nope/actions", body: Array(#"{"type":"toggle","section":"s0"}"#.utf8))))
        h.feed(.http(HubRequest(id: 2, method: "POST", path: "/api/boards/default/actions", body: Array("{".utf8))))
        h.feed(.http(HubRequest(id: 3, method: "PATCH", path: "/api/boards/default")))
        #expect(h.responses[1]?.status == 404 && body(h.responses[1])?.code == "not_found")
        #expect(h.responses[2]?.status == 400)
        #expect(h.responses[3]?.status == 400)
    }

    @Test func withTokensTheAPIWantsABearer() {
        let hex = OpenSSLDigest().hex(Array("reader-secret".utf8))
        let h = HubHarness { $0.access.tokens = [try! AccessToken.parse("reader read \(hex)").get()] }
        h.feed(.http(HubRequest(id: 1, method: "GET", path: "/api/boards")))
        h.feed(.http(HubRequest(id: 2, method: "GET", path: "/api/boards", headers: ["authorization": "Bearer reader-secret"])))
        h.feed(.http(HubRequest(id: 3, method: "PUT", path: "/api/boards/x", headers: ["authorization": "Bearer reader-secret"], body: Array("{}".utf8))))
        #expect(h.responses[1]?.status == 401)
        #expect(h.responses[2]?.status == 200 && body(h.responses[2])?["boards"]?.arrayValue?.count == 1)
        #expect(h.responses[3]?.status == 403)
    }
}
