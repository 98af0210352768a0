import FoldCore
import FoldTestSupport
import Testing

/// Resuming with `since`, within one run and across a restart; and
/// durability: acknowledged changes survive kill -9.
@Suite struct ResumeTests {
    /// Three changes over HTTP; returns the revs they were given.
    func makeThreeChanges(_ d: DaemonProcess) throws -> [Int] {
        try ["s0", "s1", "s2"].map { s in
            let r = try d.http("POST", "/api/boards/default/actions", body: #"{"type":"toggle","section":"\#(s)"}"#)
            return try #require(try r.json().rev, "HTTP \(r.status): \(String(decoding: r.body, as: UTF8.self))")
        }
    }

    /// After resubscribing with `since`: exactly the missed patches, then live ones, no snapshot.
    func expectResume(_ d: DaemonProcess, epoch: String, rev: Int, state: JSON) throws {
        let c = try d.connect()
        try c.send(Wire.subscribe(since: (epoch, rev)))
        var view = state
        for expected in (rev + 1)...(rev + 3) {
            let m = try c.recvSkippingPresence()
            try #require(m.type == "patch", "expected patch \(expected), got \(m)")
            #expect(m.rev == expected)
            #expect(m["epoch"]?.stringValue == epoch)
            view = try JSONPatch.apply(try #require(m["ops"]), to: view)
        }
        // The next message is the next live change: nothing (no snapshot) came in between.
        let live = try d.http("POST", "/api/boards/default/actions", body: #"{"type":"toggle","section":"s0"}"#)
        let next = try c.recvSkippingPresence()
        #expect(next.type == "patch")
        #expect(next.rev == rev + 4)
        #expect(try live.json().rev == rev + 4)
        view = try JSONPatch.apply(try #require(next["ops"]), to: view)
        #expect(try d.http("GET", "/api/boards/default").json()["state"] == view)
    }

    @Test func resumeSendsExactlyTheMissedPatches() throws {
        let d = try DaemonProcess()
        defer { d.shutdown() }
        let first = try d.connect()
        let snap = try first.subscribe()
        let epoch = try #require(snap["epoch"]?.stringValue), rev = try #require(snap.rev)
        try first.sendClose()
        #expect(try makeThreeChanges(d) == [rev + 1, rev + 2, rev + 3])
        try expectResume(d, epoch: epoch, rev: rev, state: try #require(snap["state"]))
    }

    @Test func staleEpochGetsASnapshot() throws {
        let d = try DaemonProcess()
        defer { d.shutdown() }
        _ = try makeThreeChanges(d)
        let c = try d.connect()
        try c.send(Wire.subscribe(since: ("not-the-epoch", 1)))
        let m = try c.recvSkippingPresence()
        #expect(m.type == "snapshot")
        #expect(m.rev == 3)
        #expect(m["state"] == (try d.http("GET", "/api/boards/default").json()["state"]))
    }

    /// SIGTERM (clients get 1001, the daemon exits 0), start again on the same
    /// store, resume, on libev and poll (under libuv, clients get 1006 instead of 1001 at a stop).
    @Test(arguments: ["libev", "poll"])
    func resumeWorksAfterARestart(eventLoop: String) throws {
        let d = try DaemonProcess(["--event-loop", eventLoop, "--shutdown-timeout", "2"])
        defer { d.shutdown() }
        let first = try d.connect()
        let snap = try first.subscribe()
        let epoch = try #require(snap["epoch"]?.stringValue), rev = try #require(snap.rev)
        _ = try makeThreeChanges(d)
        d.terminate()
        #expect(try first.waitForClose(timeout: 10) == 1001, "clients are told the server is going away")
        // Bounded: the shutdown timeout is 2 s.
        let status = d.stop(timeout: 6)
        #expect(status == 0, "SIGTERM ends the daemon cleanly")
        if status == nil { d.kill9() }
        try d.restart()
        try expectResume(d, epoch: epoch, rev: rev, state: try #require(snap["state"]))
    }

    @Test func acknowledgedChangesSurviveKill9() throws {
        let d = try DaemonProcess()
        defer { d.shutdown() }
        let before = try d.http("GET", "/api/boards/default").json()
        let epoch = try #require(before["epoch"]?.stringValue)
        var rev = try #require(before.rev)
        // 50 changes over 5 connections, each acknowledged (so committed) before the crash.
        for conn in 0..<5 {
            let c = try d.connect()
            for i in 0..<10 {
                let n = conn * 10 + i
                let a = try c.answer(Wire.action(.addSection, id: "k\(n)", #""section":{"id":"k\#(n)","title":"\#(n)"}"#), id: "k\(n)")
                try #require(a.type == "ack", "\(a)")
                #expect(a.rev == rev + 1)
                rev += 1
            }
        }
        d.kill9()
        try d.restart()
        let after = try d.http("GET", "/api/boards/default").json()
        #expect(after.rev == rev)
        #expect(after["epoch"]?.stringValue == epoch, "a crash does not change the epoch")
        let ids = after["state"]?.sectionIDs ?? []
        #expect(ids == ["s0", "s1", "s2"] + (0..<50).map { "k\($0)" })
        let next = try d.http("POST", "/api/boards/default/actions", body: #"{"type":"toggle","section":"k7"}"#)
        #expect(try next.json().rev == rev + 1, "the rev continues after the crash")
        // And a subscriber may still resume from before the crash.
        let c = try d.connect()
        try c.send(Wire.subscribe(since: (epoch, rev - 2)))
        #expect(try c.recvSkippingPresence().rev == rev - 1)
        #expect(try c.recvSkippingPresence().rev == rev)
        #expect(try c.recvSkippingPresence().rev == rev + 1)
    }
}
