import FoldTestSupport
import FoldCore
import FoldCrypto
import Testing
@testable import FoldHub

/// Boards in the store are read when first used and let go when unused
/// (`Residency`): input by input, with the reader's answers held or given
/// by the test.
@Suite struct BoardResidencyTests {
    static let ops = StoredBoard(name: "ops", epoch: "e9", rev: 3, state: Board.initial.encoded())
    static let idle = 30.0

    func harness(_ stored: [StoredBoard] = [ops], keys: [StoredKey] = [], hold: Bool = true) -> HubHarness {
        let h = HubHarness(stored: stored, storedKeys: keys) { $0.boardIdle = Self.idle }
        h.holdBoardReads = hold
        h.autoCommit = true
        return h
    }

    func reads(_ h: HubHarness) -> [String] {
        h.effects.compactMap { if case .readBoard(let b, _) = $0 { b } else { nil } }
    }

    func toggle(_ id: String, key: String? = nil) -> String {
        #"{"type":"toggle","board":"ops","id":"\#(id)","section":"s1"\#(key.map { #","key":"\#($0)""# } ?? "")}"#
    }

    func body(_ r: HubResponse?) -> JSON? { r.flatMap { try? JSONParser.parse($0.body) } }

    @Test func aStoredBoardIsListedButNotInMemoryUntilUsed() {
        let h = harness()
        #expect(h.hub.boardCount == 2 && h.hub.boardsInMemory == 1)
        h.feed(.http(HubRequest(id: 1, method: "GET", path: "/api/boards")))
        let list = body(h.responses[1])?["boards"]?.arrayValue ?? []
        #expect(list.map { $0["board"]?.stringValue } == ["default", "ops"], "\(list)")
        #expect(list.last?["rev"]?.intValue == 3 && list.last?["epoch"]?.stringValue == "e9")
        #expect(reads(h).isEmpty, "listing reads no board")
    }

    @Test func theBoardIsReadOnceHoweverManyWaitAndEachGetsItsAnswer() {
        let h = harness()
        h.open(1)
        h.open(2)
        h.subscribe(1, board: "ops")
        h.subscribe(2, board: "ops")
        h.feed(.http(HubRequest(id: 9, method: "GET", path: "/api/boards/ops")))
        #expect(reads(h) == ["ops"], "one read for three requests")
        #expect(h.read(1).isEmpty && h.read(2).isEmpty && h.responses[9] == nil, "nothing answered before the read")
        h.finishBoardReads()
        for id: UInt64 in [1, 2] {
            let got = h.read(id)
            #expect(got.first?.type == "snapshot" && got.first?.rev == 3, "\(id): \(got)")
        }
        #expect(h.responses[9]?.status == 200 && body(h.responses[9])?["rev"]?.intValue == 3)
        #expect(h.hub.boardsInMemory == 2 && h.hub.metrics.boardReads == 1)
        #expect(h.hub.metrics.httpRequests == 1, "the held request is counted once")
    }

    @Test func aConnectionsLaterMessagesWaitBehindItsFirstOthersDoNot() {
        let h = harness()
        h.open(1)
        h.open(2)
        h.subscribe(1, board: "ops")
        h.subscribe(1, board: "default")
        h.subscribe(2, board: "default")
        #expect(h.read(1).isEmpty, "the second subscribe waits behind the first")
        #expect(h.read(2).map(\.type).first == "snapshot", "another connection is answered at once")
        h.finishBoardReads()
        let got = h.read(1).filter { $0.type == "snapshot" }.map { $0["board"]?.stringValue }
        #expect(got == ["ops", "default"], "answered in the order asked: \(got)")
    }

    @Test func aMessageHeldBehindOneBoardThatNamesAnotherColdOneWaitsForItToo() {
        let other = StoredBoard(name: "dev", epoch: "e8", rev: 1, state: Board.initial.encoded())
        let h = harness([Self.ops, other])
        h.open(1)
        h.subscribe(1, board: "ops")
        h.subscribe(1, board: "dev")
        #expect(reads(h) == ["ops"])
        h.finishBoardReads()
        #expect(reads(h) == ["ops", "dev"], "the next message's board is read once it is first")
        h.finishBoardReads()
        let got = h.read(1).filter { $0.type == "snapshot" }.map { $0["board"]?.stringValue }
        #expect(got == ["ops", "dev"])
    }

    @Test func anUnusedUnwatchedBoardGoesColdWithItsKeysAndARepeatIsNotAppliedAgain() {
        let h = harness(hold: false)
        h.open(1)
        h.send(1, toggle("a", key: "k-1"))
        var got = h.read(1)
        #expect(got.last?.type == "ack" && got.last?.rev == 4, "\(got)")
        #expect(h.hub.boardsInMemory == 2)

        h.advance(seconds: Self.idle - 1)
        #expect(h.hub.boardsInMemory == 2, "not before board-idle seconds")
        h.advance(seconds: 2)
        #expect(h.hub.boardsInMemory == 1 && h.hub.metrics.boardsUnloaded == 1)
        #expect(h.hub.residency[board: "ops"]?.rev == 4, "its position is kept")

        h.send(1, toggle("b", key: "k-1"))
        got = h.read(1)
        #expect(got.last?.type == "ack" && got.last?.rev == 4 && got.last?["duplicate"]?.boolValue == true, "\(got)")
        #expect(h.store.changes.filter { $0.board == "ops" }.count == 1, "applied once")
        #expect(h.hub.metrics.boardReads == 2)
    }

    @Test func aWatchedBoardStaysAndGoesOnceItsLastWatcherLeaves() {
        let h = harness(hold: false)
        h.open(1)
        h.subscribe(1, board: "ops")
        for _ in 0..<5 { h.advance(seconds: Self.idle) }
        #expect(h.hub.boardsInMemory == 2, "watched: kept")
        h.send(1, #"{"type":"unsubscribe","board":"ops"}"#)
        h.advance(seconds: 1)
        #expect(h.hub.boardsInMemory == 2, "just left: kept for board-idle seconds")
        h.advance(seconds: Self.idle)
        h.advance(seconds: 2)
        #expect(h.hub.boardsInMemory == 1)
    }

    @Test func aBoardWithAWriteOnTheWayStaysUntilItIsCommitted() {
        let h = harness(hold: false)
        h.autoCommit = false
        h.open(1)
        h.send(1, toggle("a"))
        #expect(h.commits.count == 1)
        h.advance(seconds: Self.idle + 1)
        #expect(h.hub.boardsInMemory == 2, "a change on its way to the store keeps the board")
        h.finishCommits()
        h.advance(seconds: Self.idle + 1)
        #expect(h.hub.boardsInMemory == 1)
        #expect(h.hub.residency[board: "ops"]?.rev == 4)
    }

    @Test func aFailedReadAnswersWhatWaitedAndTheNextUseReadsAgain() {
        let h = harness(hold: false)
        h.boardReadFailure = "disk I/O error"
        h.open(1)
        h.send(1, toggle("a"))
        h.subscribe(1, board: "default")
        h.feed(.http(HubRequest(id: 5, method: "GET", path: "/api/boards/ops")))
        let got = h.read(1)
        #expect(got.first?.type == "error" && got.first?.code == "internal" && got.first?["id"]?.stringValue == "a", "\(got)")
        #expect(got.dropFirst().first?.type == "snapshot", "the next message goes on: \(got)")
        #expect(h.responses[5]?.status == 500)
        #expect(h.hub.metrics.boardReadFailures == 2 && h.hub.boardCount == 2, "the board stays in the catalog")

        h.boardReadFailure = nil
        h.subscribe(1, board: "ops")
        #expect(h.read(1).first?.type == "snapshot")
    }

    @Test func aConnectionThatClosesWhileHeldStillHasItsMessagesHandled() {
        let h = harness()
        h.open(1)
        h.send(1, toggle("a", key: "k-9"))
        h.feed(.closed(id: 1))
        #expect(h.hub.connectionCount == 1, "closed for the hub only after its messages")
        h.finishBoardReads()
        #expect(h.store.changes.filter { $0.board == "ops" }.map(\.rev) == [4], "the action sent before the close is applied")
        #expect(h.hub.connectionCount == 0)
    }

    @Test func aBoardGoneFromTheStoreIsNotFoundAndLeavesTheCatalog() {
        let h = harness()
        h.store.boards["ops"] = nil
        h.open(1)
        h.subscribe(1, board: "ops")
        h.finishBoardReads()
        #expect(h.read(1).first?.code == "not_found")
        #expect(h.hub.boardCount == 1)
    }

    @Test func anUnreadableBoardIsSkipped() {
        var broken = Self.ops
        broken.state = Array("{not json".utf8)
        let h = harness([broken], hold: false)
        h.feed(.http(HubRequest(id: 1, method: "GET", path: "/api/boards/ops")))
        #expect(h.responses[1]?.status == 404)
        #expect(h.hub.boardCount == 1)
    }

    @Test func anotherNodesCommitsToAColdBoardMoveOnlyItsPositionAndKeys() {
        let h = harness()
        let key = StoredKey(board: "ops", key: "n2-1", rev: 4, fingerprint: 7, at: 0)
        var change = StoredChange(board: "ops", rev: 4, ops: Array(#"[]"#.utf8))
        change.keys = [key]
        h.feed(.remote(.changes(board: "ops", epoch: "e9", [change])))
        #expect(h.hub.boardsInMemory == 1 && reads(h).isEmpty, "nothing read")
        #expect(h.hub.residency[board: "ops"]?.rev == 4)
        #expect(h.hub.residency[board: "ops"]?.keys.count == 1)

        h.feed(.remote(.snapshot(board: "new", epoch: "e1", rev: 2, state: .initial)))
        #expect(h.hub.boardsInMemory == 1 && h.hub.boardCount == 3, "created elsewhere: listed, not held")
        h.feed(.remote(.deleted(board: "ops")))
        #expect(h.hub.boardCount == 2 && !h.hub.residency.isCold("ops"))
    }

    @Test func anotherNodesCommitWhileTheBoardIsReadWaitsForTheRead() {
        let h = harness()
        h.open(1)
        h.subscribe(1, board: "ops")
        let c = StoredChange(board: "ops", rev: 4, ops: Array(#"[{"op":"replace","path":"/sections/1/expanded","value":true}]"#.utf8))
        h.feed(.remote(.changes(board: "ops", epoch: "e9", [c])))
        h.finishBoardReads()
        let got = h.read(1)
        #expect(got.map(\.type) == ["snapshot", "patch"], "\(got)")
        #expect(got.last?.rev == 4 && h.hub.boards["ops"]?.committedRev == 4)
    }
}

/// With tokens configured, a cold board is read from the store only for a
/// connection or request granted something on it: anything else is refused
/// as it would be after the read, without the read.
@Suite struct BoardReadPermissionTests {
    static let secret = "ops-reader-secret"
    static let bearer = ["authorization": "Bearer \(secret)"]

    func harness() -> HubHarness {
        let hidden = StoredBoard(name: "hidden", epoch: "e8", rev: 2, state: Board.initial.encoded())
        let h = HubHarness(stored: [BoardResidencyTests.ops, hidden]) { c in
            let hex = OpenSSLDigest().hex(Array(Self.secret.utf8))
            c.access.tokens = [try! AccessToken.parse("opsreader read \(hex) ops").get()]
            c.clients.authTimeout = 10
        }
        h.holdBoardReads = true
        return h
    }

    func reads(_ h: HubHarness) -> [String] {
        h.effects.compactMap { if case .readBoard(let b, _) = $0 { b } else { nil } }
    }

    func authenticated(_ h: HubHarness, _ id: UInt64) {
        h.feed(.opened(id: id, peer: "10.0.0.1", headers: Self.bearer, batching: false))
        #expect(h.read(id).map(\.type) == ["hello", "authenticated"])
    }

    @Test func aConnectionWithoutATokenIsRefusedWithoutARead() {
        let h = harness()
        h.open(1)
        h.subscribe(1, board: "ops")
        h.send(1, #"{"type":"toggle","board":"hidden","id":"t","section":"s1"}"#)
        #expect(h.read(1).map(\.code) == ["forbidden", "forbidden"])
        #expect(reads(h).isEmpty && h.hub.boardsInMemory == 1)
    }

    @Test func aTokenHasOnlyTheBoardsItIsGrantedRead() {
        let h = harness()
        authenticated(h, 1)
        h.subscribe(1, board: "hidden")
        #expect(h.read(1).map(\.code) == ["forbidden"] && reads(h).isEmpty)
        h.subscribe(1, board: "ops")
        #expect(reads(h) == ["ops"])
        h.finishBoardReads()
        #expect(h.read(1).map(\.type) == ["snapshot"])
    }

    @Test func aMessageHeldBehindAReadIsRefusedInItsTurnWithoutAnother() {
        let h = harness()
        authenticated(h, 1)
        h.subscribe(1, board: "ops")
        h.subscribe(1, board: "hidden")
        #expect(h.read(1).isEmpty, "the second waits behind the first")
        h.finishBoardReads()
        let got = h.read(1)
        #expect(got.map { $0.type == "error" ? $0.code ?? "" : $0.type } == ["snapshot", "forbidden"], "\(got)")
        #expect(reads(h) == ["ops"], "hidden was never read")
    }

    @Test func anHTTPRequestWithoutAGrantIsAnsweredWithoutARead() {
        let h = harness()
        h.feed(.http(HubRequest(id: 1, method: "GET", path: "/api/boards/ops")))
        h.feed(.http(HubRequest(id: 2, method: "GET", path: "/api/boards/hidden", headers: Self.bearer)))
        h.feed(.http(HubRequest(id: 3, method: "POST", path: "/api/boards/hidden/actions", body: Array(#"{"type":"toggle","section":"s1"}"#.utf8))))
        #expect(h.responses[1]?.status == 401 && h.responses[2]?.status == 403 && h.responses[3]?.status == 401)
        #expect(reads(h).isEmpty)
        h.feed(.http(HubRequest(id: 4, method: "GET", path: "/api/boards/ops", headers: Self.bearer)))
        #expect(reads(h) == ["ops"] && h.responses[4] == nil)
        h.finishBoardReads()
        #expect(h.responses[4]?.status == 200)
        #expect(h.hub.metrics.httpRequests == 4, "each request counted once")
    }
}
