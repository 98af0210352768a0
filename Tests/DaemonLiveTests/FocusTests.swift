import FoldCore
import FoldTestSupport
import Foundation
import Testing

/// The shared focus, typed items and follow/browse (extensions), over real
/// WebSockets and HTTP against a real daemon.
@Suite struct FocusTests {
    static let items = #"[{"label":"Intro","id":"intro"},{"label":"Docs","detail":"read these","href":"https://example.com/docs","badge":"new","id":"docs"},"plain"]"#

    /// A subscribed client whose mirror knows nothing of focus: it applies
    /// every patch with the generic RFC 6902 code, as an old client would.
    final class OldClient {
        let socket: TestSocket
        var state: JSON
        var rev: Int

        init(_ d: DaemonProcess, headers: [(String, String)] = []) throws {
            socket = try d.connect(headers: headers)
            if !headers.isEmpty { _ = try socket.recvJSON() }  // authenticated
            let snap = try socket.subscribe()
            state = try #require(snap["state"])
            rev = try #require(snap.rev)
        }

        /// Applies patches until the mirror reaches `target`.
        func catchUp(to target: Int) throws {
            while rev < target {
                let m = try socket.waitFor(type: "patch")
                #expect(m.rev == rev + 1)
                state = try JSONPatch.apply(try #require(m["ops"]), to: state)
                rev = try #require(m.rev)
            }
        }
    }

    @Test func focusOverWebSocketExpandsWithTheAccordionAndClearFocusRemovesIt() throws {
        let d = try DaemonProcess()
        defer { d.shutdown() }
        let presenter = try OldClient(d)
        let viewer = try OldClient(d)
        var r = try presenter.socket.perform(Wire.action(.setItems, id: "i", #""section":"s1","items":\#(Self.items)"#), id: "i")
        #expect(r.last?.type == "ack", "\(r)")
        _ = try presenter.socket.perform(Wire.action(.expand, id: "e", #""section":"s0""#), id: "e")

        r = try presenter.socket.perform(Wire.action(.focus, id: "f", #""section":"s1","item":1"#), id: "f")
        let patches = r.filter { $0.type == "patch" }
        #expect(patches.count == 1, "focus, its expand and the accordion's collapse are one rev")
        #expect(r.last?.type == "ack")
        let rev = try #require(r.last?.rev)
        try viewer.catchUp(to: rev)
        #expect(viewer.state["focus"] == (try JSONParser.parse(#"{"section":"s1","item":1}"#)))
        #expect(viewer.state.expandedIDs == ["s1"])
        #expect(try d.http("GET", "/api/boards/default").json()["state"] == viewer.state)

        // Bad focus: each refused with its code, nothing changes.
        #expect(try presenter.socket.answer(Wire.action(.focus, id: "x1", #""section":"s1","item":3"#), id: "x1").code == "invalid")
        #expect(try presenter.socket.answer(Wire.action(.focus, id: "x2", #""section":"zz","item":0"#), id: "x2").code == "not_found")
        #expect(try presenter.socket.answer(Wire.action(.focus, id: "x3", #""section":"s1","item":"1""#), id: "x3").code == "bad_request")
        // The same focus again: a no-op, acked at the current rev.
        #expect(try presenter.socket.answer(Wire.action(.focus, id: "same", #""section":"s1","item":1"#), id: "same").rev == rev)

        r = try presenter.socket.perform(Wire.action(.clearFocus, id: "c"), id: "c")
        #expect(r.filter { $0.type == "patch" }.count == 1)
        try viewer.catchUp(to: try #require(r.last?.rev))
        #expect(viewer.state["focus"] == nil)
        #expect(viewer.state.expandedIDs == ["s1"], "clearing the focus folds nothing")
    }

    @Test func focusOverHTTPAndEditsKeepItValidForAnOldClientsMirror() throws {
        let d = try DaemonProcess()
        defer { d.shutdown() }
        let old = try OldClient(d)
        let actions = "/api/boards/default/actions"
        #expect(try d.http("POST", actions, body: #"{"type":"setItems","section":"s2","items":\#(Self.items)}"#).status == 200)
        let set = try d.http("POST", actions, body: #"{"type":"focus","section":"s2","item":1}"#)
        #expect(set.status == 200, "\(set.text)")
        var state = try d.http("GET", "/api/boards/default").json()["state"]
        #expect(state?["focus"]?["item"]?.intValue == 1)
        #expect(try d.http("POST", actions, body: #"{"type":"focus","section":"s2","item":9}"#).status == 422)
        // The focused item (id "docs") moves: the focus follows it.
        let moved = #"[{"label":"Docs","id":"docs"},{"label":"Intro","id":"intro"}]"#
        #expect(try d.http("POST", actions, body: #"{"type":"setItems","section":"s2","items":\#(moved)}"#).status == 200)
        state = try d.http("GET", "/api/boards/default").json()["state"]
        #expect(state?["focus"]?["item"]?.intValue == 0)
        // The section goes: the focus goes with it, in the same patch.
        let removed = try d.http("POST", actions, body: #"{"type":"removeSection","section":"s2"}"#)
        let rev = try #require(try removed.json().rev)
        try old.catchUp(to: rev)
        let got = try d.http("GET", "/api/boards/default").json()
        #expect(got["state"]?["focus"] == nil)
        #expect(got.rev == old.rev)
        #expect(got["state"] == old.state, "the generic mirror is exactly GET")
        // Bad typed items over HTTP: a scheme is invalid (422), a type bad_request (400).
        let js = try d.http("POST", actions, body: #"{"type":"setItems","section":"s0","items":[{"label":"x","href":"javascript:alert(1)"}]}"#)
        let jsMessage = try js.json()["message"]?.stringValue ?? ""
        #expect(js.status == 422 && jsMessage.contains("href"), "\(js.text)")
        let typed = try d.http("POST", actions, body: #"{"type":"setItems","section":"s0","items":[{"label":"x","badge":1}]}"#)
        let typedMessage = try typed.json()["message"]?.stringValue ?? ""
        #expect(typed.status == 400 && typedMessage.contains("badge"), "\(typed.text)")
        // A document with a focus that points nowhere is refused whole.
        let put = try d.http("PUT", "/api/boards/default",
                             body: #"{"mode":"single","sections":[],"focus":{"section":"s0","item":0}}"#)
        #expect(put.status == 422, "\(put.text)")
    }

    @Test func presenceCountsFollowersAndAReadOnlyTokenMayBrowse() throws {
        let d = try DaemonProcess(Tokens.flags)
        defer { d.shutdown() }
        let presenter = try OldClient(d, headers: Tokens.bearer(Tokens.folder))
        let reader = try OldClient(d, headers: Tokens.bearer(Tokens.reader))
        let other = try OldClient(d, headers: Tokens.bearer(Tokens.reader))
        func lastPresence(_ s: TestSocket, until wanted: (Int, Int)) throws -> (Int, Int)? {
            var seen: (Int, Int)? = nil
            let deadline = Date().addingTimeInterval(5)
            while Date() < deadline {
                guard let text = try s.recvText(timeout: max(0.01, deadline.timeIntervalSinceNow)) else { break }
                let m = try JSONParser.parse(text)
                guard m.type == "presence", let v = m["viewers"]?.intValue, let f = m["following"]?.intValue else { continue }
                seen = (v, f)
                if v == wanted.0 && f == wanted.1 { break }
            }
            return seen
        }
        #expect(try lastPresence(presenter.socket, until: (3, 3)).map { [$0.0, $0.1] } == [3, 3])
        // A read-only token may not fold for everyone, but may browse.
        #expect(try reader.socket.answer(Wire.action(.toggle, id: "t", #""section":"s0""#), id: "t").code == "forbidden")
        #expect(try reader.socket.answer(Wire.action(.focus, id: "f", #""section":"s0","item":0"#), id: "f").code == "forbidden")
        try reader.socket.send(#"{"type":"view","following":false}"#)
        #expect(try lastPresence(presenter.socket, until: (3, 2)).map { [$0.0, $0.1] } == [3, 2])
        try other.socket.send(#"{"type":"view","following":false}"#)
        #expect(try lastPresence(presenter.socket, until: (3, 1)).map { [$0.0, $0.1] } == [3, 1])
        try reader.socket.send(#"{"type":"view","following":true}"#)
        #expect(try lastPresence(presenter.socket, until: (3, 2)).map { [$0.0, $0.1] } == [3, 2])
        // A bad view message is an error; the connection keeps working.
        try other.socket.send(#"{"type":"view","following":"no"}"#)
        #expect(try other.socket.waitFor(type: "error").code == "bad_request")
        #expect(try d.http("GET", "/api/boards/default", headers: Tokens.bearer(Tokens.reader)).status == 200)
    }

    @Test func hostileItemsWrittenAroundTheDaemonAreStillServed() throws {
        let d = try DaemonProcess()
        defer { d.shutdown() }
        #expect(d.stop() == 0)
        // The store's back door: a document the daemon would refuse today.
        let hostile = #"{"mode":"multi","sections":[{"id":"a","title":"<img src=x onerror=alert(1)>","items":[{"label":"x","href":"javascript:alert(1)"}],"expanded":true}],"focus":{"section":"a","item":7}}"#
        let script = "import sqlite3, sys\nc = sqlite3.connect(sys.argv[1])\nc.execute(\"UPDATE boards SET state = ? WHERE name = 'default'\", (sys.argv[2].encode(),))\nc.commit()\n"
        let r = try runTool("python3", ["-c", script, d.dbPath, hostile], timeout: 20)
        #expect(r.status == 0, "\(r.stderr)")
        try d.restart()
        let got = try d.http("GET", "/api/boards/default").json()["state"]
        #expect(got?["sections"]?.arrayValue?.first?["items"]?.arrayValue?.first?["href"]?.stringValue == "javascript:alert(1)")
        #expect(got?["focus"] == nil, "a focus that points nowhere is dropped on load")
        // Editing another field of the board still works; the old items are not re-judged.
        let ok = try d.http("POST", "/api/boards/default/actions", body: #"{"type":"setTitle","section":"a","title":"t"}"#)
        #expect(ok.status == 200, "\(ok.text)")
    }
}
