import FoldCore
import FoldTestSupport
import Foundation
import Testing

/// `revert {board, rev}` on a live daemon: folds, edits and removals undone
/// as new changes broadcast to everyone, conflicts naming the later rev,
/// the original action's permission, the accordion rule.
@Suite struct RevertTests {
    func post(_ d: DaemonProcess, _ body: String, headers: [(String, String)] = []) throws -> HTTPReply {
        try d.http("POST", "/api/boards/default/actions", body: body, headers: headers)
    }

    func state(_ d: DaemonProcess) throws -> JSON { try #require(try d.http("GET", "/api/boards/default").json()["state"]) }

    @Test func aFoldAnEditAndARemovalAreUndoneAndEveryoneSeesIt() throws {
        let d = try DaemonProcess()
        defer { d.shutdown() }
        let watcher = try d.connect()
        _ = try watcher.subscribe()
        let c = try d.connect()
        #expect(try c.answer(Wire.action(.toggle, id: "a", #""section":"s1""#), id: "a").rev == 1)
        #expect(try c.answer(Wire.action(.setTitle, id: "b", #""section":"s2","title":"Later""#), id: "b").rev == 2)
        #expect(try c.answer(Wire.action(.removeSection, id: "c", #""section":"s0""#), id: "c").rev == 3)

        // The removal: s0 comes back where it was.
        #expect(try c.answer(Wire.action(.revert, id: "r3", #""rev":3"#), id: "r3").rev == 4)
        #expect(try state(d).sectionIDs == ["s0", "s1", "s2"])
        // The edit, carried over the removal and its undo.
        #expect(try c.answer(Wire.action(.revert, id: "r2", #""rev":2"#), id: "r2").rev == 5)
        #expect(try state(d).section("s2")?["title"]?.stringValue == "2")
        // The fold, over HTTP.
        let r = try post(d, #"{"type":"revert","rev":1}"#)
        let rev = try r.json().rev
        #expect(r.status == 200 && rev == 6, "\(r.text)")
        #expect(try state(d) == Wire.defaultState)
        // The watcher got each undo as a patch.
        var patches: [Int] = []
        let got = try eventually {
            patches += try watcher.drain(quiet: 0.1).filter { $0.type == "patch" }.compactMap(\.rev)
            return patches.contains(6)
        }
        #expect(got)
        #expect(patches == [1, 2, 3, 4, 5, 6])
        let h = try d.http("GET", "/api/boards/default/history?since=5").json()
        let entry = try #require(h["entries"]?.arrayValue?.first)
        #expect(entry["summary"]?.stringValue == "undo rev 1 (toggle s1 → expanded '1')")
        #expect(entry["action"]?["reverts"]?.stringValue == "toggle")
    }

    @Test func aRevertOverALaterChangeOfTheSameValueConflictsNamingIt() throws {
        let d = try DaemonProcess()
        defer { d.shutdown() }
        #expect(try post(d, #"{"type":"setTitle","section":"s1","title":"one"}"#).status == 200)   // rev 1
        #expect(try post(d, #"{"type":"toggle","section":"s0"}"#).status == 200)                    // rev 2
        #expect(try post(d, #"{"type":"setTitle","section":"s1","title":"uno"}"#).status == 200)   // rev 3
        let r = try post(d, #"{"type":"revert","rev":1}"#)
        #expect(r.status == 409, "\(r.status) \(r.text)")
        #expect(r.text.contains("conflict") && r.text.contains("rev 3"), "\(r.text)")
        let c = try d.connect()
        let e = try c.answer(Wire.action(.revert, id: "x", #""rev":1"#), id: "x")
        #expect(e.code == "conflict" && e["message"]?.stringValue?.contains("rev 3") == true, "\(e)")
        #expect(try state(d).section("s1")?["title"]?.stringValue == "uno")
        // Unknown revs are refused plainly.
        #expect(try post(d, #"{"type":"revert","rev":99}"#).status == 404)
        #expect(try post(d, #"{"type":"revert","rev":0}"#).status == 404)
    }

    /// Undo, undo: the second undo finds the value its change set
    /// again and applies; taken out of order, the change in the way is named.
    @Test func undoAfterUndoApplies() throws {
        let d = try DaemonProcess()
        defer { d.shutdown() }
        let c = try d.connect()
        #expect(try post(d, #"{"type":"setTitle","section":"s2","title":"A"}"#).status == 200)   // rev 1
        #expect(try post(d, #"{"type":"setTitle","section":"s2","title":"B"}"#).status == 200)   // rev 2
        let early = try c.answer(Wire.action(.revert, id: "x", #""rev":1"#), id: "x")
        #expect(early.code == "conflict" && early["message"]?.stringValue?.contains("rev 2") == true, "\(early)")
        #expect(try c.answer(Wire.action(.revert, id: "u2", #""rev":2"#), id: "u2").rev == 3)
        #expect(try state(d).section("s2")?["title"]?.stringValue == "A")
        let r = try post(d, #"{"type":"revert","rev":1}"#)
        let undone = try? r.json().rev
        #expect(r.status == 200 && undone == 4, "\(r.status) \(r.text)")
        #expect(try state(d).section("s2")?["title"]?.stringValue == "2")
        // An edit of a section removed since and brought back by an undo.
        #expect(try post(d, #"{"type":"setTitle","section":"s1","title":"X"}"#).status == 200)   // rev 5
        #expect(try post(d, #"{"type":"removeSection","section":"s1"}"#).status == 200)          // rev 6
        #expect(try post(d, #"{"type":"revert","rev":5}"#).status == 409)
        #expect(try c.answer(Wire.action(.revert, id: "u6", #""rev":6"#), id: "u6").rev == 7)
        #expect(try c.answer(Wire.action(.revert, id: "u5", #""rev":5"#), id: "u5").rev == 8)
        #expect(try state(d) == Wire.defaultState)
    }

    @Test func aRevertNeedsThePermissionTheOriginalActionNeeded() throws {
        let d = try DaemonProcess(Tokens.flags)
        defer { d.shutdown() }
        #expect(try post(d, #"{"type":"setTitle","section":"s1","title":"one"}"#, headers: Tokens.bearer(Tokens.editor)).status == 200)
        #expect(try post(d, #"{"type":"toggle","section":"s0"}"#, headers: Tokens.bearer(Tokens.editor)).status == 200)
        // A folder may undo a fold but not an edit.
        let refused = try post(d, #"{"type":"revert","rev":1}"#, headers: Tokens.bearer(Tokens.folder))
        #expect(refused.status == 403 && refused.text.contains("needs edit"), "\(refused.text)")
        #expect(try post(d, #"{"type":"revert","rev":2}"#, headers: Tokens.bearer(Tokens.folder)).status == 200)
        #expect(try post(d, #"{"type":"revert","rev":1}"#, headers: Tokens.bearer(Tokens.editor)).status == 200)
        // A reader may not revert at all.
        #expect(try post(d, #"{"type":"revert","rev":3}"#, headers: Tokens.bearer(Tokens.reader)).status == 403)
        let c = try d.connect(headers: Tokens.bearer(Tokens.folder))
        let e = try c.answer(Wire.action(.revert, id: "x", #""rev":4"#), id: "x")
        #expect(e.code == "forbidden", "\(e)")
    }

    /// Single mode: undoing a collapse reopens that section and closes the one opened since, in the same patch.
    @Test func aRevertUnderTheAccordionKeepsOneOpen() throws {
        let d = try DaemonProcess()
        defer { d.shutdown() }
        #expect(try post(d, #"{"type":"expand","section":"s0"}"#).status == 200)     // rev 1
        #expect(try post(d, #"{"type":"collapse","section":"s0"}"#).status == 200)   // rev 2
        #expect(try post(d, #"{"type":"expand","section":"s2"}"#).status == 200)     // rev 3
        let watcher = try d.connect()
        _ = try watcher.subscribe()
        #expect(try post(d, #"{"type":"revert","rev":2}"#).status == 200)
        #expect(try state(d).expandedIDs == ["s0"])
        let patch = try watcher.waitFor(type: "patch")
        #expect(patch.rev == 4 && patch["ops"]?.arrayValue?.count == 2, "\(patch)")
    }
}
