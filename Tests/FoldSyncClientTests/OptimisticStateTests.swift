import FoldCore
import FoldSyncClient
import FoldTestSupport
import Foundation
import Testing

/// What a board shows against the real daemon: an action shows the moment
/// it is called, once (never applied twice on the way to its ack), and a
/// refused one is taken back with the reason; `confirmed` stays the
/// daemon's board.
@Suite(.serialized) struct OptimisticStateTests {
    typealias Rig = OutboxContractTests.Rig
    typealias Outcome = OutboxContractTests.Outcome

    static func expanded(_ board: JSON?, _ section: String) -> Bool? { board?.section(section)?["expanded"]?.boolValue }

    @Test func anActionShowsAtOnceAndIsConfirmedOnce() async throws {
        let r = try Rig()
        defer { r.end() }
        let board = try await r.client.subscribe("default")
        let changes = SyncClientTests.Recorder(board)
        #expect(await r.offline())
        let toggle = Outcome { try await board.toggle("s1") }
        // Offline: nothing reaches the daemon, yet the board shows the fold.
        #expect(await until { Self.expanded(board.state, "s1") == true })
        #expect(Self.expanded(board.confirmed, "s1") == false && board.rev == 0)
        #expect(toggle.value == nil)
        r.relay.accept()
        #expect(await until(15) { toggle.value != nil })
        #expect(toggle.rev == 1)
        #expect(await until { board.rev == 1 && changes.changes.contains { !$0.local && $0.rev == 1 } })
        let get = try r.get()["state"]
        #expect(board.confirmed == get && board.state == get)
        // From the first change on, s1 shows open: never toggled twice, never back.
        let shown = changes.changes.map { Self.expanded($0.state, "s1") }
        #expect(changes.changes.first?.local == true && !shown.isEmpty && shown.allSatisfy { $0 == true }, "\(shown)")
    }

    @Test func aCutBetweenCommitAndAckNeverShowsTheActionTwice() async throws {
        let r = try Rig()
        defer { r.end() }
        let board = try await r.client.subscribe("default")
        let changes = SyncClientTests.Recorder(board)
        for round in 1...6 {
            r.relay.cutNext(.afterForwarding)
            let before = Self.expanded(board.state, "s1")
            let seen = changes.changes.count
            let rev = try await board.toggle("s1")
            #expect(rev == round)
            // The recorder hears the board's changes through a task of its
            // own: it has them all once it has the confirmation of this
            // round's rev (else the next round's slice would begin with this one's).
            #expect(await until { board.rev == round && changes.changes.contains { !$0.local && $0.rev == round } })
            let flags = changes.changes[seen...].map { Self.expanded($0.state, "s1") }
            #expect(!flags.isEmpty && flags.allSatisfy { $0 == !(before ?? false) }, "round \(round): \(flags)")
        }
        let get = try r.get()
        #expect(get["rev"]?.intValue == 6 && board.confirmed == get["state"] && board.state == get["state"])
    }

    @Test func aRefusedActionIsRolledBackWithItsReason() async throws {
        let r = try Rig()
        defer { r.end() }
        let board = try await r.client.subscribe("default")
        let changes = SyncClientTests.Recorder(board)
        #expect(await r.offline())
        let toggle = Outcome { try await board.toggle("s2") }
        #expect(await until { Self.expanded(board.state, "s2") == true })
        // Another client removes the section while the action waits.
        _ = try r.daemon.curlJSON("POST", "/api/boards/default/actions", body: #"{"type":"removeSection","section":"s2"}"#)
        r.relay.accept()
        #expect(await until(15) { toggle.value != nil })
        #expect(toggle.code == "not_found")
        #expect(await until { changes.changes.contains { $0.rolledBack != nil } })
        let rolled = try #require(changes.changes.first { $0.rolledBack != nil })
        #expect(rolled.local && rolled.rolledBack?.error.code == "not_found" && rolled.rolledBack?.action == .toggle(section: "s2"))
        let get = try r.get()["state"]
        #expect(board.state == get && board.confirmed == get && get?.section("s2") == nil)
    }
}
