import FoldCore
import FoldSyncClient
import FoldSyncKit
import FoldTestSupport
import Foundation
import Testing

/// FoldSyncKit's session and board model against the real daemon, through
/// the libwebsockets transport (`LWSTransport`): what an app's views read.
@Suite(.serialized) @MainActor struct BoardModelTests {
    /// Lets a task just created on the main actor run up to its first
    /// suspension (an action's call shows it, then waits for the answer).
    static func started(_ condition: () -> Bool) async {
        for _ in 0..<1000 where !condition() { await Task.yield() }
    }

    /// Changes in arrival order.
    @MainActor final class Recorder {
        var changes: [BoardChange] = []
        init(_ model: BoardModel) {
            let stream = model.changes()
            Task { @MainActor in for await c in stream { self.changes.append(c) } }
        }
    }

    func session(_ d: DaemonProcess, _ transport: LWSTransport) -> FoldSyncSession {
        FoldSyncSession(url: URL(string: d.url)!, transport: transport)
    }

    @Test func theModelShowsTheBoardAndATapOpensItsSectionAtOnceClosingTheOpenOne() async throws {
        let d = try DaemonProcess()
        defer { d.shutdown() }
        let transport = try LWSTransport()
        defer { transport.shutdown() }
        let s = session(d, transport)
        defer { s.close() }
        let model = try await s.board("default")
        #expect(s.state == .connected)
        #expect(model.sections.map(\.id) == ["s0", "s1", "s2"])
        #expect(model.rev == 0 && model.list.open.isEmpty)
        let changes = Recorder(model)
        #expect(try await model.toggle("s0") == 1)
        // Shown before any answer: the first change is local, with the daemon's board as it was.
        #expect(await until { !changes.changes.isEmpty })
        let shown = try #require(changes.changes.first)
        #expect(shown.local && shown.rev == 0)
        #expect(shown.state["sections"]?.arrayValue?[0]["expanded"] == .bool(true))
        #expect(shown.confirmed["sections"]?.arrayValue?[0]["expanded"] == .bool(false))
        #expect(try await model.toggle("s1") == 2)
        #expect(model.isOpen("s1") && !model.isOpen("s0"))
        #expect(await until { model.rev == 2 && model.confirmed?.sections[1].expanded == true && model.pending == 0 })
        #expect(model.list.open == ["s1"])
        try await model.focus("s1", item: 1)
        #expect(model.focus == Focus(section: "s1", item: 1))
    }

    @Test func aRefusedActionIsRolledBackAndThrowsItsCode() async throws {
        let d = try DaemonProcess()
        defer { d.shutdown() }
        let transport = try LWSTransport()
        defer { transport.shutdown() }
        let a = session(d, transport), b = session(d, transport)
        defer { a.close(); b.close() }
        let model = try await a.board("default"), other = try await b.board("default")
        let changes = Recorder(model)
        // Called offline against rev 0, while another app moves the board on.
        a.suspend()
        let stale = Task { try await model.act(.toggle(section: "s2"), ifRev: 0) }
        await Self.started { model.pending == 1 }
        #expect(model.isOpen("s2"))
        try await other.toggle("s0")
        a.resume()
        do {
            _ = try await stale.value
            Issue.record("an action judged against rev 0 was accepted at rev 1")
        } catch let error as SyncError {
            #expect(error.code == "conflict")
        }
        #expect(await until { !model.isOpen("s2") && model.isOpen("s0") })
        #expect(await until { changes.changes.contains { $0.rolledBack?.error.code == "conflict" } })
    }

    @Test func whileSuspendedActionsWaitAndResumeSendsThemOnce() async throws {
        let d = try DaemonProcess()
        defer { d.shutdown() }
        let transport = try LWSTransport()
        defer { transport.shutdown() }
        let s = session(d, transport)
        defer { s.close() }
        let model = try await s.board("default")
        s.suspend()
        #expect(s.state == .suspended)
        // Held in the background: no connection, and none is tried.
        try await Task.sleep(nanoseconds: 1_500_000_000)
        #expect(s.state == .suspended)
        let waiting = Task { try await model.toggle("s2") }
        await Self.started { model.pending == 1 }
        #expect(model.isOpen("s2") && model.confirmed?.sections[2].expanded == false)
        s.resume()
        #expect(try await waiting.value == 1)
        #expect(s.state == .connected)
        #expect(await until { model.confirmed?.sections[2].expanded == true && model.rev == 1 })
    }

    @Test func aSecondAppSeesTheFirstAppsFold() async throws {
        let d = try DaemonProcess()
        defer { d.shutdown() }
        let transport = try LWSTransport()
        defer { transport.shutdown() }
        let a = session(d, transport), b = session(d, transport)
        defer { a.close(); b.close() }
        let ma = try await a.board("default"), mb = try await b.board("default")
        let before = mb.list
        try await ma.toggle("s1")
        #expect(await until { mb.isOpen("s1") })
        #expect(mb.list.changes(since: before).opened == ["s1"])
        #expect(mb.lastChange?.local == false)
    }
}
