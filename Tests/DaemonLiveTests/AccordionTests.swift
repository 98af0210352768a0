import FoldCore
import FoldTestSupport
import Testing

/// Guarantee 5 (the accordion rule), modes, and no-op answers, seen over the wire.
@Suite struct AccordionTests {
    /// A subscribed client, its view of the board, and a helper that runs one
    /// action and folds the resulting patches (if any) into the view.
    final class Viewer {
        let socket: TestSocket
        var state: JSON
        var rev: Int

        init(_ d: DaemonProcess) throws {
            socket = try d.connect()
            let snap = try socket.subscribe()
            state = try #require(snap["state"])
            rev = try #require(snap.rev)
        }

        /// Runs `body` (members after `"type"`), returns its answer and the patches it caused.
        func run(_ type: ActionName, _ fields: String = "") throws -> (answer: JSON, patches: [JSON]) {
            let id = "r\(rev)-\(type)"
            let seen = try socket.perform(Wire.action(type, id: id, fields), id: id)
            let patches = seen.filter { $0.type == "patch" }
            for p in patches {
                #expect(p.rev == rev + 1)
                state = try JSONPatch.apply(try #require(p["ops"]), to: state)
                rev = try #require(p.rev)
            }
            return (seen.last!, patches)
        }
    }

    @Test func openingOneClosesTheOtherInOnePatch() throws {
        let d = try DaemonProcess()
        defer { d.shutdown() }
        let v = try Viewer(d)
        #expect(v.state["mode"]?.stringValue == "single")

        var r = try v.run(.toggle, #""section":"s0""#)
        #expect(r.answer.type == "ack" && r.patches.count == 1)
        #expect(v.state.expandedIDs == ["s0"])

        r = try v.run(.toggle, #""section":"s1""#)
        #expect(r.answer.type == "ack")
        #expect(r.patches.count == 1, "opening s1 must close s0 in the same patch (one rev)")
        #expect(r.answer.rev == v.rev)
        #expect(v.state.expandedIDs == ["s1"])

        r = try v.run(.expand, #""section":"s2""#)
        #expect(r.patches.count == 1)
        #expect(v.state.expandedIDs == ["s2"])

        r = try v.run(.toggle, #""section":"s2""#)
        #expect(r.patches.count == 1)
        #expect(v.state.expandedIDs.isEmpty, "toggling the open section leaves none open")

        let got = try d.http("GET", "/api/boards/default").json()
        #expect(got["state"] == v.state)
        #expect(got.rev == v.rev)
    }

    @Test func multiModeAndSwitchingBackKeepsTheFirstExpanded() throws {
        let d = try DaemonProcess()
        defer { d.shutdown() }
        let v = try Viewer(d)

        var r = try v.run(.expandAll)
        #expect(r.answer.code == "invalid", "expandAll is invalid in single mode")
        #expect(r.patches.isEmpty)

        r = try v.run(.setMode, #""mode":"multi""#)
        #expect(r.answer.type == "ack")
        #expect(v.state["mode"]?.stringValue == "multi")
        _ = try v.run(.toggle, #""section":"s2""#)
        _ = try v.run(.toggle, #""section":"s1""#)
        #expect(v.state.expandedIDs == ["s1", "s2"], "multi mode: sections are independent")
        r = try v.run(.expandAll)
        #expect(r.answer.type == "ack")
        #expect(v.state.expandedIDs == ["s0", "s1", "s2"])
        r = try v.run(.collapse, #""section":"s0""#)
        #expect(v.state.expandedIDs == ["s1", "s2"])

        r = try v.run(.setMode, #""mode":"single""#)
        #expect(r.answer.type == "ack" && r.patches.count == 1)
        #expect(v.state["mode"]?.stringValue == "single")
        #expect(v.state.expandedIDs == ["s1"], "switching to single keeps only the first expanded section")

        r = try v.run(.collapseAll)
        #expect(r.patches.count == 1)
        #expect(v.state.expandedIDs.isEmpty)
        #expect(try d.http("GET", "/api/boards/default").json()["state"] == v.state)
    }

    @Test func noOpIsAckedWithTheCurrentRevAndNoPatch() throws {
        let d = try DaemonProcess()
        defer { d.shutdown() }
        let v = try Viewer(d)
        let other = try Viewer(d)
        let before = v.rev
        for (type, fields): (ActionName, String) in [(.collapse, #""section":"s1""#), (.collapseAll, ""), (.setMode, #""mode":"single""#)] {
            let r = try v.run(type, fields)
            #expect(r.answer.type == "ack", "\(type)")
            #expect(r.answer.rev == before, "\(type): a no-op answers with the current rev")
            #expect(r.patches.isEmpty, "\(type): a no-op sends no patch")
        }
        // The other viewer's next patch is the next real change: nothing was sent for the no-ops.
        let r = try v.run(.toggle, #""section":"s0""#)
        #expect(r.answer.rev == before + 1)
        let next = try other.socket.recvSkippingPresence()
        #expect(next.type == "patch")
        #expect(next.rev == before + 1)
    }
}
