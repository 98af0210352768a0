import FoldCore
import FoldSyncClient
import FoldTestSupport
import Foundation
import Testing

/// The Swift library against the real daemon: the client contract's cases
/// (clients/contract/cases.json), each a test named after its id.
@Suite(.serialized) struct SyncClientTests {
    static let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    /// Changes in arrival order, collected from `board.changes()`.
    final class Recorder: @unchecked Sendable {
        private let lock = NSLock()
        private var list: [BoardChange] = []
        var changes: [BoardChange] { lock.lock(); defer { lock.unlock() }; return list }
        private func append(_ c: BoardChange) { lock.lock(); list.append(c); lock.unlock() }
        init(_ board: SyncBoard) {
            let stream = board.changes()
            Task { for await c in stream { self.append(c) } }
        }
    }

    final class States: @unchecked Sendable {
        private let lock = NSLock()
        private var list: [SyncState] = []
        var all: [SyncState] { lock.lock(); defer { lock.unlock() }; return list }
        private func append(_ s: SyncState) { lock.lock(); list.append(s); lock.unlock() }
        init(_ client: FoldSyncClient) {
            let stream = client.states()
            Task { for await s in stream { self.append(s) } }
        }
    }

    @Test func subscribe_mirror_equals_get() async throws {
        let f = try Fixture()
        defer { f.end() }
        let (d, client) = (f.daemon, f.client)
        let board = try await client.subscribe("default")
        let get = try d.curlJSON("GET", "/api/boards/default")
        #expect(board.state == get["state"] && board.rev == get["rev"]?.intValue && board.epoch == get["epoch"]?.stringValue)
    }

    @Test func ack_resolves_with_rev() async throws {
        let f = try Fixture()
        defer { f.end() }
        let (d, client) = (f.daemon, f.client)
        let board = try await client.subscribe("default")
        let changes = Recorder(board)
        let rev = try await board.toggle("s1")
        #expect(rev == 1 && board.rev == 1, "the patch arrives before the ack")
        #expect(await until { changes.changes.contains { $0.rev == 1 && $0.ops != nil } })
        let expected = try d.curlJSON("GET", "/api/boards/default")["state"]
        #expect(board.state == expected)
    }

    @Test func remote_change_applied() async throws {
        let f = try Fixture()
        defer { f.end() }
        let (d, client) = (f.daemon, f.client)
        let board = try await client.subscribe("default")
        let changes = Recorder(board)
        _ = try d.curlJSON("POST", "/api/boards/default/actions", body: #"{"type":"setTitle","section":"s0","title":"From afar"}"#)
        #expect(await until { board.rev == 1 && !changes.changes.isEmpty })
        let c = try #require(changes.changes.first)
        #expect(c.rev == 1 && c.ops != nil && !c.resynced && c.state == board.state)
        let expected = try d.curlJSON("GET", "/api/boards/default")["state"]
        #expect(board.state == expected)
    }

    @Test func error_is_typed() async throws {
        let f = try Fixture()
        defer { f.end() }
        let client = f.client
        let board = try await client.subscribe("default")
        do {
            try await board.toggle("nope")
            Issue.record("a toggle of a missing section was acknowledged")
        } catch let e as SyncError {
            #expect(e.code == "not_found" && !e.message.isEmpty, "\(e)")
        }
        do {
            try await board.act(.toggle(section: "s0"), ifRev: 99)
            Issue.record("a stale ifRev was acknowledged")
        } catch let e as SyncError {
            #expect(e.code == "conflict", "\(e)")
        }
        #expect(try await board.toggle("s0") == 1, "the connection stays usable")
        await #expect(throws: SyncError.self) { try await client.subscribe("no-such-board") }
    }

    @Test func states_in_order() async throws {
        let d = try DaemonProcess()
        defer { d.shutdown() }
        let client = try FoldSyncClient(url: d.url)
        let states = States(client)
        _ = try await client.subscribe("default")
        #expect(client.state == .connected)
        client.close()
        #expect(await until { client.state == .closed })
        try await Task.sleep(nanoseconds: 300_000_000)
        // Nothing after closed: no reconnect, one closed, the last word.
        let seen = states.all
        #expect(seen.last == .closed && seen.filter { $0 == .closed }.count == 1 && client.state == .closed, "\(seen)")
        // `states()` gives the states from the call on: on a loaded machine the
        // client may be connected before it, and then `connected` is not among them.
        let closed = try #require(seen.firstIndex(of: .closed), "\(seen)")
        if let connected = seen.firstIndex(of: .connected) { #expect(connected < closed, "\(seen)") }
    }

    @Test func reconnect_with_backoff() async throws {
        let f = try Fixture()
        defer { f.end() }
        let (d, client) = (f.daemon, f.client)
        let states = States(client)
        _ = try await client.subscribe("default")
        #expect(d.stop() == 0)
        #expect(await until { states.all.contains { if case .disconnected(_, let delay) = $0 { delay <= 10 } else { false } } }, "\(states.all)")
        try d.restart(samePort: true)
        // The recorder drains `states()` on a task of its own: wait for it to see the end too.
        #expect(await until(15) { client.state == .connected && states.all.last == .connected }, "\(states.all)")
        let seen = states.all
        let lost = try #require(seen.firstIndex { if case .disconnected = $0 { true } else { false } })
        #expect(seen[(lost + 1)...].contains(.connecting) && seen.last == .connected, "\(seen)")
    }

    @Test func resume_since() async throws {
        let f = try Fixture()
        defer { f.end() }
        let (d, client) = (f.daemon, f.client)
        let board = try await client.subscribe("default")
        let changes = Recorder(board)
        #expect(try await board.toggle("s0") == 1)
        #expect(d.stop() == 0)
        try d.restart(samePort: true)
        // Three changes the client misses while it waits for its next attempt (250 ms at least).
        for s in ["s1", "s2", "s0"] { _ = try d.curlJSON("POST", "/api/boards/default/actions", body: #"{"type":"toggle","section":"\#(s)"}"#) }
        #expect(await until(15) { board.rev == 4 && changes.changes.count >= 4 }, "rev \(board.rev ?? -1)")
        // The toggle showed at once, before its patch: a local change at rev 0.
        #expect(changes.changes.first.map { $0.local && $0.rev == 0 } == true)
        let revs = changes.changes.filter { !$0.local }.map(\.rev)
        #expect(revs == [1, 2, 3, 4], "\(revs)")
        #expect(!changes.changes.contains { $0.resynced }, "a snapshot instead of the missed patches")
        let expected = try d.curlJSON("GET", "/api/boards/default")["state"]
        #expect(board.state == expected)
    }

    @Test func resync_epoch_changed() async throws {
        let d = try DaemonProcess()
        defer { d.shutdown() }
        _ = try d.curlJSON("PUT", "/api/boards/tmp", body: #"{"mode":"multi","sections":[]}"#)
        let client = try FoldSyncClient(url: d.url)
        defer { client.close() }
        let board = try await client.subscribe("tmp")
        let changes = Recorder(board)
        let epoch = board.epoch
        _ = try d.curlJSON("DELETE", "/api/boards/tmp")
        #expect(await until { board.state == nil })
        _ = try d.curlJSON("PUT", "/api/boards/tmp", body: #"{"mode":"single","sections":[{"id":"x","title":"X","items":[],"expanded":false}]}"#)
        #expect(await until { changes.changes.contains { $0.resynced && $0.reason == "epoch" } }, "\(changes.changes.map { ($0.rev, $0.reason) })")
        let expected = try d.curlJSON("GET", "/api/boards/tmp")["state"]
        #expect(board.epoch != epoch && board.state == expected)
    }

    /// A static token as a value; a JWT function called at every connect.
    @Test func token_value_and_function() async throws {
        let hash = try sha256Hex("swift-secret-1")
        let d = try DaemonProcess(["--token", "lib read,fold \(hash)"])
        defer { d.shutdown() }
        let byValue = try FoldSyncClient(url: d.url, token: .value("swift-secret-1"))
        defer { byValue.close() }
        #expect(try await byValue.subscribe("default").toggle("s0") == 1)
        let calls = Counter()
        let byFunction = try FoldSyncClient(url: d.url, token: .provider({ calls.add(); return "swift-secret-1" }))
        defer { byFunction.close() }
        _ = try await byFunction.subscribe("default")
        #expect(calls.value == 1)
        #expect(d.stop() == 0)
        try d.restart(samePort: true)
        #expect(await until(15) { calls.value >= 2 && byFunction.state == .connected }, "calls \(calls.value)")
        // History is read with the same token (the daemon refuses a read without): the value, the provider's last.
        #expect(try await byValue.subscribe("default").history().entries.map(\.actor) == ["lib"])
        #expect(try await byFunction.subscribe("default").history(since: 0).entries.map(\.rev) == [1])
        let refused = try FoldSyncClient(url: d.url, token: .value("wrong"))
        defer { refused.close() }
        await #expect(throws: SyncError.self) { try await refused.subscribe("default") }
    }

    @Test func token_refreshed_on_auth_expiring() async throws {
        let dir = NSTemporaryDirectory() + "foldsync-swiftlib-\(getpid())"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let secret = dir + "/jwt.secret"
        try Data((0..<48).map { _ in UInt8.random(in: 0...255) }).write(to: URL(fileURLWithPath: secret))
        let d = try DaemonProcess(["--jwt-key", "HS256:\(secret)", "--jwt-refresh-before", "2", "--jwt-leeway", "0"])
        defer { d.shutdown() }
        let calls = Counter()
        let python = try PyJWT.python()
        let client = try FoldSyncClient(url: d.url, token: .provider({
            calls.add()
            return try PyJWT.mint(python: python, secret: secret, life: 6, subject: "swift")
        }))
        defer { client.close() }
        let states = States(client)
        let board = try await client.subscribe("default")
        // Tokens of 6 s, each refreshed 2 s before its end (a minting
        // Python's start, under a loaded machine, has time to fit): two
        // refreshes in band by about 8 s.
        #expect(await until(25) { calls.value >= 3 }, "the function was called \(calls.value) times")
        #expect(!states.all.contains { if case .disconnected = $0 { true } else { false } }, "\(states.all)")
        #expect(try await board.toggle("s1") >= 1)
    }

    @Test func follow_and_focus() async throws {
        let d = try DaemonProcess()
        defer { d.shutdown() }
        let a = try FoldSyncClient(url: d.url), b = try FoldSyncClient(url: d.url)
        defer { a.close(); b.close() }
        let boardA = try await a.subscribe("default"), boardB = try await b.subscribe("default")
        _ = try await boardA.focus("s1", item: 0)
        #expect(await until { boardB.state?["focus"]?["section"]?.stringValue == "s1" }, "\(String(describing: boardB.state?["focus"]))")
        #expect(await until(5) { boardB.viewers == 2 && boardB.following == 2 })
        a.follow(false)
        #expect(await until(5) { boardB.following == 1 }, "following \(boardB.following ?? -1)")
        // A viewer that leaves is counted out.
        a.close()
        #expect(await until(5) { boardB.viewers == 1 }, "viewers \(boardB.viewers ?? -1)")
    }

    @Test func helpers() async throws {
        let f = try Fixture()
        defer { f.end() }
        let (d, client) = (f.daemon, f.client)
        let board = try await client.subscribe("default")
        #expect(try await board.expand("s2") == 1)
        #expect(try await board.collapse("s2") == 2)
        _ = try await board.act(.setMode(.multi))
        #expect(try await board.expandAll() == 4)
        #expect(try await board.collapseAll() == 5)
        #expect(try await board.focus("s0", item: 0) == 6)
        #expect(try await board.clearFocus() == 7)
        #expect(try await board.revert(7) == 8, "undoing the clearFocus brings the focus back")
        #expect(board.state?["focus"]?["section"]?.stringValue == "s0")
        let expected = try d.curlJSON("GET", "/api/boards/default")["state"]
        #expect(board.state == expected)
        // history: GET /api/boards/NAME/history over lws' HTTP client, beside the socket.
        let all = try await board.history()
        #expect(all.board == "default" && all.epoch == board.epoch && all.rev == 8 && !all.more)
        #expect(all.entries.map(\.rev) == Array(1...8), "\(all.entries.map(\.rev))")
        #expect(all.entries.map(\.type) == ["expand", "collapse", "setMode", "expandAll", "collapseAll", "focus", "clearFocus", "revert"],
                "\(all.entries.map(\.type))")
        #expect(all.entries.allSatisfy { $0.actor == "anonymous" && $0.summary?.isEmpty == false && !$0.ops.isEmpty })
        #expect(all.entries.last?.action?["rev"]?.intValue == 7)
        let last3 = try await board.history(limit: 3)
        #expect(last3.entries.map(\.rev) == [6, 7, 8] && last3.more, "\(last3.entries.map(\.rev))")
        let after6 = try await board.history(since: 6)
        #expect(after6.entries.map(\.rev) == [7, 8] && !after6.more)
        let back = try await board.history(before: 6, limit: 2)
        #expect(back.entries.map(\.rev) == [4, 5] && back.more)
        await #expect { try await board.history(since: 1, before: 2) } throws: { ($0 as? SyncError)?.code == "bad_request" }
        #expect(client.state == .connected)
        // After close(): no answer is waited for.
        client.close()
        await #expect { try await board.history() } throws: { ($0 as? SyncError)?.code == "disconnected" }
    }

    /// backoff_vectors and mirror_vectors: the library's backoff and mirror are
    /// FoldCore's `Backoff` and FoldClient's `BoardMirror`, which
    /// SharedVectorTests (FoldClientTests) runs over Tests/vectors.
    @Test func everyContractCaseHasATest() throws {
        let cases = try JSONParser.parse([UInt8](Data(contentsOf: URL(fileURLWithPath: Self.repo + "/clients/contract/cases.json"))), maxDepth: 8)
        // Every test file of this target: the outbox's cases have a file of their own.
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        let source = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".swift") }
            .map { try String(contentsOfFile: folder.appendingPathComponent($0).path, encoding: .utf8) }.joined()
        let byVectors: Set<String> = ["backoff_vectors", "mirror_vectors"]
        for c in cases["cases"]?.arrayValue ?? [] {
            let id = try #require(c["id"]?.stringValue)
            #expect(byVectors.contains(id) || source.contains("func \(id)()"), "no test for contract case \(id)")
        }
    }

    // MARK: helpers

    /// A daemon and one client of it, ended together.
    struct Fixture {
        let daemon: DaemonProcess
        let client: FoldSyncClient
        init(_ flags: [String] = []) throws {
            daemon = try DaemonProcess(flags)
            client = try FoldSyncClient(url: daemon.url)
        }
        func end() {
            client.close()
            daemon.shutdown()
        }
    }

    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var n = 0
        func add() { lock.lock(); n += 1; lock.unlock() }
        var value: Int { lock.lock(); defer { lock.unlock() }; return n }
    }

}
