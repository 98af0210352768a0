import FoldCore
import Testing
@testable import FoldSession

/// `HistoryRequest`, the history read every Swift client shares: the URL
/// beside the socket, the headers, the answer decoded into typed entries;
/// and the token the session machine hands it. No socket, no daemon.
@Suite struct HistoryRequestTests {
    @Test func thePathHasOnlyTheParametersGivenInOrder() {
        #expect(HistoryRequest(board: "default").path == "/api/boards/default/history")
        #expect(HistoryRequest(board: "default", since: 3).path == "/api/boards/default/history?since=3")
        #expect(HistoryRequest(board: "b", before: 9, limit: 2).path == "/api/boards/b/history?before=9&limit=2")
        #expect(HistoryRequest(board: "b", since: 0, before: 1, limit: 5).path == "/api/boards/b/history?since=0&before=1&limit=5",
                "both are sent: the daemon refuses them together")
        #expect(HistoryRequest(board: "a b/é").path == "/api/boards/a%20b%2F%C3%A9/history")
        #expect(HistoryRequest(board: "Team_1.x-y~").path == "/api/boards/Team_1.x-y~/history")
    }

    @Test func theURLSitsBesideTheSocket() {
        let r = HistoryRequest(board: "default", limit: 1)
        #expect(r.url(besideSocket: "ws://127.0.0.1:8080/ws") == "http://127.0.0.1:8080/api/boards/default/history?limit=1")
        #expect(r.url(besideSocket: "wss://host/foldsync/ws") == "https://host/foldsync/api/boards/default/history?limit=1")
        #expect(r.url(besideSocket: "WSS://host/ws/?token=x#f") == "https://host/api/boards/default/history?limit=1")
        #expect(r.url(besideSocket: "ws://[::1]:9/") == "http://[::1]:9/api/boards/default/history?limit=1")
        #expect(r.url(besideSocket: "http://h:1/ws") == "http://h:1/api/boards/default/history?limit=1")
        #expect(r.url(besideSocket: "ftp://h/ws") == nil)
        #expect(r.url(besideSocket: "ws:///ws") == nil)
        #expect(r.url(besideSocket: "no scheme") == nil)
    }

    @Test func theHeadersCarryTheBearerToken() {
        #expect(HistoryRequest.headers(token: nil).map { "\($0.name): \($0.value)" } == ["Accept: application/json"])
        #expect(HistoryRequest.headers(token: "t0k").map { "\($0.name): \($0.value)" } == ["Accept: application/json", "Authorization: Bearer t0k"])
    }

    static let page = #"""
    {"board":"default","epoch":"e1","rev":8,"more":true,"entries":[
     {"rev":7,"at":1764583452123,"actor":"alice","session":"c3","summary":"clearFocus","action":{"type":"clearFocus"},
      "inverse":[{"op":"test","path":"/focus","value":null},{"op":"replace","path":"/focus","value":{"section":"s0","item":0}}],
      "ops":[{"op":"replace","path":"/focus","value":null}]},
     {"rev":8,"at":1764583452200,"actor":"anonymous","session":"http","summary":"revert 7","action":{"type":"revert","rev":7},
      "inverse":null,"ops":[{"op":"replace","path":"/focus","value":{"section":"s0","item":0}}]},
     {"rev":9,"ops":[]}]}
    """#

    @Test func aPageDecodesIntoTypedEntries() throws {
        let p = try HistoryRequest(board: "default").decode(status: 200, body: Array(Self.page.utf8))
        #expect(p.board == "default" && p.epoch == "e1" && p.rev == 8 && p.more)
        #expect(p.entries.map(\.rev) == [7, 8, 9])
        let first = p.entries[0]
        #expect(first.at == 1_764_583_452_123 && first.actor == "alice" && first.session == "c3" && first.summary == "clearFocus")
        #expect(first.type == "clearFocus" && first.action == .object(JSONObject([("type", .string("clearFocus"))])))
        #expect(first.ops == [.replace(path: "/focus", value: .null)])
        #expect(first.inverse?.count == 2 && first.inverse?.first == .test(path: "/focus", value: .null))
        #expect(p.entries[1].type == "revert" && p.entries[1].action?["rev"]?.intValue == 7 && p.entries[1].inverse == nil)
        // An entry from before history was recorded: rev and ops only.
        #expect(p.entries[2] == HistoryEntry(rev: 9, ops: []))
        #expect(p.entries[2].type == nil)
    }

    @Test func refusalsAreTypedErrors() {
        let r = HistoryRequest(board: "default", since: 1, before: 2)
        #expect(throws: SyncError(code: "bad_request", message: "give since or before, not both")) {
            try r.decode(status: 400, body: Array(#"{"code":"bad_request","message":"give since or before, not both"}"#.utf8))
        }
        #expect(throws: SyncError(code: "not_found", message: "HTTP 404")) {
            try r.decode(status: 404, body: Array(#"{"code":"not_found"}"#.utf8))
        }
        // A proxy's page, not the daemon's.
        #expect { try r.decode(status: 502, body: Array("<html>Bad Gateway</html>".utf8)) } throws: {
            ($0 as? SyncError)?.code == "internal" && ($0 as? SyncError)?.message.contains("502") == true
        }
    }

    @Test(arguments: [
        "not json",
        #"[]"#,
        #"{"board":"b","epoch":"e","rev":1,"more":false}"#,
        #"{"board":"b","epoch":"e","rev":"1","more":false,"entries":[]}"#,
        #"{"board":"b","epoch":"e","rev":1,"more":false,"entries":[{"ops":[]}]}"#,
        #"{"board":"b","epoch":"e","rev":1,"more":false,"entries":[{"rev":1}]}"#,
        #"{"board":"b","epoch":"e","rev":1,"more":false,"entries":[{"rev":1,"ops":[{"op":"nope","path":""}]}]}"#,
        #"{"board":"b","epoch":"e","rev":1,"more":false,"entries":[{"rev":1,"ops":[],"at":"today"}]}"#,
        #"{"board":"b","epoch":"e","rev":1,"more":false,"entries":[{"rev":1,"ops":[],"action":"toggle"}]}"#,
    ])
    func aMalformedPageIsInternal(_ body: String) {
        #expect { try HistoryRequest(board: "b").decode(status: 200, body: Array(body.utf8)) } throws: {
            ($0 as? SyncError)?.code == "internal"
        }
    }

    @Test func theMachineHandsOutTheTokenItConnectsWith() {
        #expect(SessionMachine(clientID: "c", token: .none).bearer == nil)
        #expect(SessionMachine(clientID: "c", token: .value("v")).bearer == "v")
        var m = SessionMachine(clientID: "c", token: .provider)
        _ = m.handle(.start, now: 0)
        #expect(m.bearer == nil, "the provider has given nothing yet")
        _ = m.handle(.token("first", failure: nil, refresh: false), now: 0)
        #expect(m.bearer == "first")
        _ = m.handle(.token("second", failure: nil, refresh: true), now: 1)
        #expect(m.bearer == "second", "a refreshed token is the one to use")
        _ = m.handle(.token(nil, failure: "offline", refresh: true), now: 2)
        #expect(m.bearer == "second", "a failed refresh keeps the last one given")
    }
}
