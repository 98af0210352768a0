import FoldCore
import FoldTestSupport
import Testing

/// Guarantees 1, 4 and 6: consecutive revs, patch before ack, and patches
/// applied to the snapshot mirror `GET /api/boards/NAME`.
@Suite struct SyncTests {
    @Test func twoClientsGetTheSamePatchAndTheOriginatorGetsItBeforeItsAck() throws {
        let d = try DaemonProcess()
        defer { d.shutdown() }
        let a = try d.connect(), b = try d.connect()
        let snapA = try a.subscribe(), snapB = try b.subscribe()
        #expect(snapA["epoch"] == snapB["epoch"])
        #expect(snapA.rev == snapB.rev)
        let rev0 = try #require(snapA.rev)

        let seen = try a.perform(Wire.action(.toggle, id: "a1", #""section":"s1""#), id: "a1")
        #expect(seen.map(\.type) == ["patch", "ack"])
        let patchA = seen[0], ack = seen[1]
        #expect(patchA.rev == rev0 + 1)
        #expect(ack.rev == rev0 + 1)
        #expect(ack["board"]?.stringValue == "default")
        #expect(patchA["epoch"] == snapA["epoch"])

        let patchB = try b.waitFor(type: "patch")
        #expect(patchB["ops"] == patchA["ops"])
        #expect(patchB.rev == patchA.rev)
        #expect(patchB["board"]?.stringValue == "default")

        let after = try JSONPatch.apply(try #require(patchB["ops"]), to: try #require(snapB["state"]))
        #expect(after.expandedIDs == ["s1"])
    }

    @Test func revsAreConsecutiveAndPatchesMirrorTheHTTPState() throws {
        let d = try DaemonProcess()
        defer { d.shutdown() }
        let a = try d.connect(), b = try d.connect(), watcher = try d.connect()
        let snap = try watcher.subscribe()
        var state = try #require(snap["state"])
        var rev = try #require(snap.rev)
        let actions: [(TestSocket, String)] = [
            (a, #""type":"toggle","section":"s0""#),
            (b, #""type":"toggle","section":"s2""#),
            (a, #""type":"setMode","mode":"multi""#),
            (b, #""type":"expand","section":"s0""#),
            (a, #""type":"addSection","section":{"id":"n1","title":"新しい","items":[{"label":"x"},"y"]},"at":1"#),
            (b, #""type":"moveSection","section":"s2","to":0"#),
            (a, #""type":"setTitle","section":"s1","title":"one \"quoted\" / ~title""#),
            (b, #""type":"setItems","section":"n1","items":["1",{"label":"z","k":[true,null,1.5]}]"#),
            (a, #""type":"expandAll""#),
            (b, #""type":"removeSection","section":"s0""#),
            (a, #""type":"setMode","mode":"single""#),
            (b, #""type":"collapseAll""#),
        ]
        for (i, (client, body)) in actions.enumerated() {
            let answer = try client.answer(#"{"board":"default","id":"x\#(i)",\#(body)}"#, id: "x\(i)")
            try #require(answer.type == "ack", "action \(i): \(answer)")
            let patch = try watcher.waitFor(type: "patch")
            #expect(patch.rev == rev + 1, "action \(i)")
            rev = try #require(patch.rev)
            state = try JSONPatch.apply(try #require(patch["ops"]), to: state)
            let got = try d.http("GET", "/api/boards/default").json()
            #expect(got.rev == rev)
            #expect(got["state"] == state, "mirror broken after action \(i)")
        }
        #expect(state.sectionIDs == ["s2", "n1", "s1"])
        #expect(state.expandedIDs.isEmpty)
    }
}
