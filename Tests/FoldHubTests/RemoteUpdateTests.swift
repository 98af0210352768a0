import FoldCore
import Testing
@testable import FoldHub

/// Other nodes' commits (a shared store) as hub input: applied in rev order,
/// fanned out like local ones, and caught up when they cannot be applied.
@Suite struct RemoteUpdateTests {
    /// Opens `section`, closing `closing` (the single-open rule holds in what another node logged).
    func expand(_ section: Int, rev: Int, closing: Int? = nil) -> StoredChange {
        let close = closing.map { #"{"op":"replace","path":"/sections/\#($0)/expanded","value":false},"# } ?? ""
        return StoredChange(board: "default", rev: rev,
                            ops: Array(#"[\#(close){"op":"replace","path":"/sections/\#(section)/expanded","value":true}]"#.utf8))
    }

    func subscribed() -> HubHarness {
        let h = HubHarness()
        h.open(1)
        h.subscribe(1)
        #expect(h.read(1).map(\.type) == ["snapshot"])
        return h
    }

    @Test func remoteChangesReachSubscribersInRevOrderOnce() throws {
        let h = subscribed()
        h.feed(.remote(.changes(board: "default", epoch: "e0", [expand(1, rev: 1), expand(2, rev: 2, closing: 1)])))
        #expect(h.read(1).map { "\($0.type ?? "") \($0.rev ?? -1)" } == ["patch 1", "patch 2"])
        // Revs already held are skipped: a notification may repeat what was read.
        h.feed(.remote(.changes(board: "default", epoch: "e0", [expand(2, rev: 2, closing: 1), expand(0, rev: 3, closing: 2)])))
        #expect(h.read(1).map(\.rev) == [3])
        let b = try #require(h.hub.board("default"))
        #expect(b.committedRev == 3)
        #expect(b.committed?.sections.map(\.expanded) == [true, false, false])
        #expect(h.catchUps.isEmpty)
    }

    @Test func aLocalWriteFollowsTheRemoteHead() {
        let h = subscribed()
        h.autoCommit = true
        h.feed(.remote(.changes(board: "default", epoch: "e0", [expand(1, rev: 1), expand(2, rev: 2, closing: 1)])))
        _ = h.read(1)
        h.act(1, .toggle, #""section":"s0""#, tag: "mine")
        let got = h.read(1)
        #expect(got.map(\.type) == ["patch", "ack"])
        #expect(got.map(\.rev) == [3, 3])
    }

    @Test func aGapOrAnotherEpochAsksForACatchUp() {
        let h = subscribed()
        h.feed(.remote(.changes(board: "default", epoch: "e0", [expand(1, rev: 2)])))
        h.feed(.remote(.changes(board: "default", epoch: "other", [expand(1, rev: 1)])))
        #expect(h.read(1).isEmpty)
        #expect(h.catchUps == ["default e0 0", "default e0 0"])
    }

    @Test func aBoardWithLocalWritesWaitingIsCaughtUpAfterTheCommit() {
        let h = subscribed()
        h.act(1, .toggle, #""section":"s0""#, tag: "mine")
        h.feed(.remote(.changes(board: "default", epoch: "e0", [expand(1, rev: 1)])))
        #expect(h.catchUps.isEmpty)
        h.finishCommits()
        #expect(h.read(1).map(\.type) == ["patch", "ack"])
        #expect(h.catchUps == ["default e0 1"])
    }

    @Test func snapshotsAndDeletionsFromAnotherNode() {
        let h = subscribed()
        var state = Board.initial
        state.sections[0].expanded = true
        h.feed(.remote(.snapshot(board: "default", epoch: "e9", rev: 4, state: state)))
        let snap = h.read(1)
        #expect(snap.map(\.type) == ["snapshot"])
        #expect(snap.first?["epoch"]?.stringValue == "e9")
        #expect(h.hub.board("default")?.committedRev == 4)
        h.feed(.remote(.deleted(board: "default")))
        #expect(h.read(1).map(\.type) == ["deleted"])
        #expect(h.hub.board("default") == nil)
    }
}

/// A batch a shared store refused (another node moved the board first): its
/// actions wait for the catch-up, then apply on the newer state.
@Suite struct MovedBatchTests {
    /// A subscribed client's `toggle s2` (tagged `tag`), refused as moved.
    func refusedToggle(tag: String) -> HubHarness {
        let h = HubHarness()
        h.open(1)
        h.subscribe(1)
        _ = h.read(1)
        h.act(1, .toggle, #""section":"s2""#, tag: tag)
        let refused = h.commits.removeFirst()
        h.feed(.committed(.moved(batch: refused.id, reason: "moved")))
        return h
    }

    /// Another node's rev 1: s1 opened.
    let theirs = StoredChange(board: "default", rev: 1, ops: Array(#"[{"op":"replace","path":"/sections/1/expanded","value":true}]"#.utf8))

    @Test func refusedActionsAreAppliedAgainOnTheCaughtUpState() throws {
        let h = refusedToggle(tag: "mine")
        #expect(h.read(1).isEmpty, "neither an answer nor a patch yet")
        #expect(h.catchUps == ["default e0 0"])
        h.feed(.remote(.changes(board: "default", epoch: "e0", [theirs])))
        #expect(h.read(1).map(\.rev) == [1])
        h.finishCommits()
        let got = h.read(1)
        #expect(got.map(\.type) == ["patch", "ack"])
        #expect(got.map(\.rev) == [2, 2])
        // The accordion holds on the newer state: opening s2 closed s1.
        #expect(h.hub.board("default")?.committed?.sections.map(\.expanded) == [false, false, true])
    }

    @Test func anIfRevIsCheckedAgainstTheRealHead() {
        let h = HubHarness()
        h.open(1)
        h.act(1, .toggle, #""section":"s2","ifRev":0"#, tag: "mine")
        let refused = h.commits.removeFirst()
        h.feed(.committed(.moved(batch: refused.id, reason: "moved")))
        h.feed(.remote(.changes(board: "default", epoch: "e0", [theirs])))
        #expect(h.read(1).map(\.code) == ["conflict"])
    }

    /// Requests that come while the board waits for its catch-up queue behind
    /// the held ones, instead of building another batch on the stale head.
    @Test func newRequestsWaitBehindTheCatchUp() throws {
        let h = refusedToggle(tag: "first")
        h.act(1, .toggle, #""section":"s0""#, tag: "second")
        #expect(h.commits.isEmpty, "nothing built on the stale head")
        h.feed(.remote(.changes(board: "default", epoch: "e0", [theirs])))
        h.finishCommits()
        let acks = h.read(1).filter { $0.type == "ack" }
        #expect(acks.map { $0["id"]?.stringValue } == ["first", "second"])
        #expect(acks.map(\.rev) == [2, 3])
    }

    /// Everything that waited for the catch-up goes again as one batch: one
    /// by one, the first went alone and lost again to the node that had just
    /// won, while the rest queued behind it.
    @Test func heldRequestsGoAgainAsOneBatch() throws {
        let h = refusedToggle(tag: "first")
        h.act(1, .toggle, #""section":"s0""#, tag: "second")
        h.act(1, .setTitle, #""section":"s1","title":"x""#, tag: "third")
        h.feed(.remote(.changes(board: "default", epoch: "e0", [theirs])))
        #expect(h.commits.count == 1)
        #expect(h.commits.first?.changes.map(\.rev) == [2, 3, 4])
    }

    /// A store failure answers what waits for a catch-up at once (`internal`), never later.
    @Test func aFailureAnswersHeldRequestsAtOnce() throws {
        let h = refusedToggle(tag: "first")
        h.act(1, .toggle, #""section":"s0""#, tag: "other-board-write")
        h.feed(.http(HubRequest(id: 7, method: "PUT", path: "/api/boards/second", body: Array(#"{"mode":"multi","sections":[]}"#.utf8))))
        h.store.failure = "connection refused"
        h.finishCommits()
        let answers = h.read(1)
        #expect(answers.map(\.code) == ["internal", "internal"], "\(answers)")
        h.act(1, .toggle, #""section":"s0""#, tag: "during")
        #expect(h.read(1).map(\.code) == ["internal"])
    }

    /// A delete is an intent too: refused as moved, it deletes the board as it has become.
    @Test func aRefusedDeleteIsAppliedAgain() {
        let h = HubHarness()
        h.feed(.http(HubRequest(id: 9, method: "DELETE", path: "/api/boards/default")))
        let refused = h.commits.removeFirst()
        h.feed(.committed(.moved(batch: refused.id, reason: "moved")))
        #expect(h.responses[9] == nil, "not refused")
        h.feed(.remote(.changes(board: "default", epoch: "e0", [theirs])))
        h.finishCommits()
        #expect(h.responses[9]?.status == 204)
        #expect(h.hub.board("default") == nil)
    }

    /// The follower's answer to a catch-up that found the board where this
    /// node holds it: no change (never a snapshot, read later, that may be
    /// ahead of the log). The held action goes again; nothing more is asked.
    @Test func aCatchUpThatFindsNothingNewReleasesTheHeldActions() throws {
        let h = refusedToggle(tag: "mine")
        #expect(h.catchUps == ["default e0 0"])
        h.feed(.remote(.changes(board: "default", epoch: "e0", [])))
        #expect(h.catchUps == ["default e0 0"], "asked once")
        h.finishCommits()
        let got = h.read(1)
        #expect(got.map(\.type) == ["patch", "ack"])
        #expect(got.map(\.rev) == [1, 1])
    }
}

/// `/metrics` for a shared store: reconnects as counted, and the revs this
/// node has not applied of what the follower last read.
@Suite struct StoreMetricsTests {
    @Test func catchUpLagAndReconnects() {
        let h = HubHarness()
        let heads = ["default": BoardHead(epoch: "e0", rev: 3), "elsewhere": BoardHead(epoch: "x", rev: 4)]
        let text = h.hub.metricsText(transport: TransportFigures(), store: StoreFigures(reconnects: 2, heads: heads))
        #expect(text.contains("\nfoldsync_store_reconnects_total 2\n"))
        // default: 3 revs behind; elsewhere, unknown here: its 4 revs and its creation.
        #expect(text.contains("\nfoldsync_catchup_lag_revs 8\n"))
        #expect(h.hub.metricsText(transport: TransportFigures()).contains("\nfoldsync_catchup_lag_revs 0\n"))
    }
}

/// On a shared store an answer read off this node's copy (a no-op, a
/// refusal) waits for the store to confirm the board stands there.
@Suite struct JudgedAnswerTests {
    func shared() -> HubHarness {
        let h = HubHarness { $0.storeIsShared = true }
        h.open(1)
        return h
    }

    @Test func aNoOpIsConfirmedAgainstTheStoresHead() throws {
        let h = shared()
        h.act(1, .collapse, #""section":"s0""#, tag: "noop")
        #expect(h.read(1).isEmpty, "not answered from this node's copy")
        let batch = try #require(h.commits.first)
        #expect(batch.checks == [PositionCheck(name: "default", epoch: "e0", rev: 0)])
        #expect(batch.puts.isEmpty)
        h.finishCommits()
        let got = h.read(1)
        #expect(got.map(\.type) == ["ack"] && got.map(\.rev) == [0])
    }

    /// Another node had opened s0: the check is refused, and the collapse, judged again on the caught-up board, changes it.
    @Test func aRefusedCheckJudgesTheActionAgain() throws {
        let h = shared()
        h.subscribe(1)
        _ = h.read(1)
        h.act(1, .collapse, #""section":"s0""#, tag: "noop?")
        let refused = h.commits.removeFirst()
        h.feed(.committed(.moved(batch: refused.id, reason: "moved")))
        let theirs = StoredChange(board: "default", rev: 1, ops: Array(#"[{"op":"replace","path":"/sections/0/expanded","value":true}]"#.utf8))
        h.feed(.remote(.changes(board: "default", epoch: "e0", [theirs])))
        h.finishCommits()
        let got = h.read(1)
        #expect(got.map(\.type) == ["patch", "patch", "ack"])
        #expect(got.last?.rev == 2)
    }

    @Test func refusalsReadOffTheBoardWaitToo() throws {
        let h = shared()
        h.send(1, #"{"type":"toggle","board":"nowhere","section":"s0","id":"missing"}"#)
        h.act(1, .toggle, #""section":"s0","ifRev":5"#, tag: "conflict")
        #expect(h.read(1).isEmpty)
        // The first went alone (nothing was in flight); the second waits behind it.
        #expect(h.commits.first?.checks == [PositionCheck(name: "nowhere", epoch: nil, rev: 0)])
        h.finishCommits()
        #expect(h.read(1).map(\.code) == ["not_found", "conflict"])
    }

    @Test func oneNodesStoreAnswersRefusalsAtOnceAndChecksNothing() {
        let h = HubHarness()
        h.open(1)
        h.act(1, .toggle, #""section":"s0","ifRev":5"#, tag: "conflict")
        #expect(h.read(1).map(\.code) == ["conflict"])
        h.act(1, .collapse, #""section":"s0""#, tag: "noop")
        #expect(h.commits.isEmpty)
        #expect(h.read(1).map(\.type) == ["ack"])
    }
}
