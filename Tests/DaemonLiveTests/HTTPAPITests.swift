import FoldCore
import FoldTestSupport
import Testing

/// The HTTP API on the WebSocket port: boards, actions, errors, health, metrics.
@Suite struct HTTPAPITests {
    static let doc = #"{"mode":"multi","sections":[{"id":"a","title":"A","items":["1",{"label":"two"}],"expanded":true}]}"#

    /// An error answer: the status that belongs to `code`, and a `{"code","message"}` body.
    func expectError(_ r: HTTPReply, _ code: String, _ status: Int, sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(r.status == status, "\(r.text)", sourceLocation: sourceLocation)
        let body = try r.json()
        #expect(body.code == code, "\(r.text)", sourceLocation: sourceLocation)
        #expect(body["message"]?.stringValue != nil, sourceLocation: sourceLocation)
    }

    @Test func boardsCanBeListedReadWrittenAndDeleted() throws {
        let d = try DaemonProcess()
        defer { d.shutdown() }
        let list = try d.http("GET", "/api/boards")
        #expect(list.status == 200)
        let boards = try #require(try list.json()["boards"]?.arrayValue)
        #expect(boards.count == 1)
        #expect(boards.first?["board"]?.stringValue == "default")
        #expect(boards.first?["epoch"]?.stringValue?.isEmpty == false)
        #expect(boards.first?.rev == 0)

        let one = try d.http("GET", "/api/boards/default")
        #expect(one.status == 200)
        let body = try one.json()
        #expect(body["board"]?.stringValue == "default")
        #expect(body["epoch"] == boards.first?["epoch"])
        #expect(body["state"] == Wire.defaultState)

        let put = try d.http("PUT", "/api/boards/team_1", body: Self.doc)
        #expect(put.status == 200, "\(put.text)")
        let made = try put.json()
        #expect(made["board"]?.stringValue == "team_1")
        #expect(made["epoch"]?.stringValue?.isEmpty == false)
        #expect(made.rev != nil)
        let read = try d.http("GET", "/api/boards/team_1").json()
        #expect(read["state"] == (try JSONParser.parse(Self.doc)))
        #expect(read["epoch"] == made["epoch"])
        #expect(try d.http("GET", "/api/boards").json()["boards"]?.arrayValue?.count == 2)

        let del = try d.http("DELETE", "/api/boards/team_1")
        #expect(del.status == 204)
        try expectError(try d.http("GET", "/api/boards/team_1"), "not_found", 404)
        try expectError(try d.http("DELETE", "/api/boards/team_1"), "not_found", 404)
        #expect(try d.http("GET", "/api/boards").json()["boards"]?.arrayValue?.count == 1)
    }

    @Test func actionsAnswerWithTheRevAndErrorsWithCodeAndStatus() throws {
        let d = try DaemonProcess()
        defer { d.shutdown() }
        let ok = try d.http("POST", "/api/boards/default/actions", body: #"{"type":"toggle","section":"s0"}"#)
        #expect(ok.status == 200)
        #expect(try ok.json().rev == 1)
        let again = try d.http("POST", "/api/boards/default/actions", body: #"{"type":"toggle","section":"s1","ifRev":1}"#)
        #expect(try again.json().rev == 2)
        #expect(try d.http("GET", "/api/boards/default").json()["state"]?.expandedIDs == ["s1"])

        let actions = "/api/boards/default/actions"
        try expectError(try d.http("POST", actions, body: #"{"type":"toggle","section":"s0","ifRev":1}"#), "conflict", 409)
        try expectError(try d.http("POST", actions, body: #"{"type":"expandAll"}"#), "invalid", 422)
        try expectError(try d.http("POST", actions, body: #"{"type":"toggle","section":"zz"}"#), "not_found", 404)
        try expectError(try d.http("POST", "/api/boards/nope/actions", body: #"{"type":"toggle","section":"s0"}"#), "not_found", 404)
        try expectError(try d.http("POST", actions, body: #"{"type":"explode"}"#), "unknown_type", 400)
        try expectError(try d.http("POST", actions, body: #"{"type":"toggle"}"#), "bad_request", 400)
        try expectError(try d.http("POST", actions, body: "{not json"), "bad_request", 400)
        try expectError(try d.http("PUT", "/api/boards/x", body: "[1,2]"), "bad_request", 400)
        try expectError(try d.http("PUT", "/api/boards/x", body: #"{"mode":"single","sections":[{"id":"a","title":"A","items":[],"expanded":true},{"id":"b","title":"B","items":[],"expanded":true}]}"#), "invalid", 422)
        try expectError(try d.http("GET", "/api/boards/missing"), "not_found", 404)
        // None of the refusals changed anything.
        #expect(try d.http("GET", "/api/boards/default").json().rev == 2)
    }

    @Test func healthAndMetrics() throws {
        let d = try DaemonProcess()
        defer { d.shutdown() }
        let c = try d.connect()
        try c.subscribe()
        _ = try d.http("POST", "/api/boards/default/actions", body: #"{"type":"toggle","section":"s0"}"#)
        let health = try d.http("GET", "/healthz")
        #expect(health.status == 200)
        #expect(try health.json()["status"]?.stringValue == "ok")
        let metrics = try d.http("GET", "/metrics")
        #expect(metrics.status == 200)
        #expect(metrics.headers["content-type"]?.hasPrefix("text/plain") == true)
        #expect(metric("foldsync_connections", in: metrics.text) == 1)
        #expect(metrics.text.contains("foldsync_commit_seconds_bucket{"))
        #expect(metrics.text.contains(#"foldsync_commit_seconds_bucket{le="+Inf"}"#))
        #expect((metric("foldsync_commit_seconds_count", in: metrics.text) ?? 0) >= 1)
    }

    @Test func aChangeOverHTTPReachesWebSocketSubscribers() throws {
        let d = try DaemonProcess()
        defer { d.shutdown() }
        let c = try d.connect()
        let snap = try c.subscribe()
        let r = try d.http("POST", "/api/boards/default/actions", body: #"{"type":"setTitle","section":"s2","title":"via http"}"#)
        let rev = try #require(try r.json().rev)
        let patch = try c.waitFor(type: "patch")
        #expect(patch.rev == rev)
        let state = try JSONPatch.apply(try #require(patch["ops"]), to: try #require(snap["state"]))
        #expect(state.section("s2")?["title"]?.stringValue == "via http")

        // A PUT over a watched board reaches its subscriber (as a patch or a snapshot: either is allowed).
        let put = try d.http("PUT", "/api/boards/default", body: Self.doc)
        #expect(put.status == 200)
        let next = try c.recvSkippingPresence()
        let seen: JSON
        switch next.type {
        case "patch":
            #expect(next.rev == rev + 1)
            seen = try JSONPatch.apply(try #require(next["ops"]), to: state)
        case "snapshot":
            seen = try #require(next["state"])
        default:
            Issue.record("unexpected \(next)")
            return
        }
        #expect(seen == (try JSONParser.parse(Self.doc)))
        #expect(next.rev == (try put.json().rev))
    }
}
