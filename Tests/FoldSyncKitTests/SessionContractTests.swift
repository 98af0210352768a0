import FoldCore
import FoldSession
import FoldSyncClient
import FoldSyncKit
import FoldTestSupport
import Foundation
import Testing

/// FoldSyncKit's `FoldSyncSession` and `BoardModel` against the real daemon
/// (through `LWSTransport`, as on Linux): the client contract's cases
/// (clients/contract/cases.json), each a test named after its id, as
/// FoldSyncClientTests runs them for the Linux library.
@Suite(.serialized) @MainActor struct SessionContractTests {
    nonisolated static let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    @Test func subscribe_mirror_equals_get() async throws {
        let r = try Rig()
        defer { r.end() }
        let model = try await Self.within { try await r.session.board("default") }
        let get = try r.daemon.curlJSON("GET", "/api/boards/default")
        #expect(get["state"] != nil && get["state"] != .null)
        #expect(model.confirmed?.json == get["state"], "\(String(describing: model.confirmed?.json)) vs \(String(describing: get["state"]))")
        #expect(model.board?.json == get["state"], "nothing pending: the board shown is the daemon's")
        #expect(model.rev == get["rev"]?.intValue && model.epoch == get["epoch"]?.stringValue && model.epoch != nil)
    }

    @Test func ack_resolves_with_rev() async throws {
        let r = try Rig()
        defer { r.end() }
        let model = try await Self.within { try await r.session.board("default") }
        let changes = Recorder(model)
        let rev = try await Self.within { try await model.toggle("s1") }
        // At the moment the toggle resolves, the change for its rev was already delivered.
        #expect(rev == 1 && model.rev == 1, "the patch arrives before the ack")
        #expect(model.lastChange.map { $0.rev == 1 } == true, "\(String(describing: model.lastChange))")
        #expect(model.confirmed?.sections.first { $0.id == "s1" }?.expanded == true)
        #expect(await until { changes.changes.contains { $0.rev == 1 && $0.ops != nil && !$0.local } })
        // The daemon's change for rev 1 came before anything that followed the ack.
        let daemonChange = try #require(changes.changes.firstIndex { $0.rev == 1 && $0.ops != nil })
        #expect(!changes.changes[..<daemonChange].contains { $0.rev >= 1 }, "\(changes.changes.map { ($0.rev, $0.local) })")
        let expected = try r.daemon.curlJSON("GET", "/api/boards/default")["state"]
        #expect(model.confirmed?.json == expected && model.board?.json == expected)
    }

    @Test func remote_change_applied() async throws {
        let r = try Rig()
        defer { r.end() }
        let model = try await Self.within { try await r.session.board("default") }
        let changes = Recorder(model)
        _ = try r.daemon.curlJSON("POST", "/api/boards/default/actions", body: #"{"type":"setTitle","section":"s0","title":"From afar"}"#)
        #expect(await until { model.rev == 1 && !changes.changes.isEmpty })
        let c = try #require(changes.changes.first)
        #expect(c.rev == 1 && c.ops != nil && !c.resynced && !c.local, "\(c)")
        #expect(c.state == model.board?.json && c.confirmed == model.confirmed?.json)
        #expect(model.sections.first?.title == "From afar")
        let expected = try r.daemon.curlJSON("GET", "/api/boards/default")["state"]
        #expect(model.confirmed?.json == expected && c.confirmed == expected)
    }

    @Test func error_is_typed() async throws {
        let r = try Rig()
        defer { r.end() }
        let model = try await Self.within { try await r.session.board("default") }
        do {
            try await Self.within { try await model.toggle("nope") }
            Issue.record("a toggle of a missing section was acknowledged")
        } catch let e as SyncError {
            #expect(e.code == "not_found" && !e.message.isEmpty, "\(e)")
        }
        do {
            try await Self.within { try await model.act(.toggle(section: "s0"), ifRev: 99) }
            Issue.record("a stale ifRev was acknowledged")
        } catch let e as SyncError {
            #expect(e.code == "conflict", "\(e)")
        }
        #expect(r.session.state == .connected)
        #expect(try await Self.within { try await model.toggle("s0") } == 1, "the connection stays usable")
        await #expect { try await Self.within { try await r.session.board("no-such-board") } } throws: { ($0 as? SyncError)?.code == "not_found" }
        #expect(try await Self.within { try await model.toggle("s1") } == 2)
    }

    @Test func states_in_order() async throws {
        let d = try DaemonProcess()
        defer { d.shutdown() }
        let transport = try LWSTransport()
        defer { transport.shutdown() }
        let s = FoldSyncSession(url: URL(string: d.url)!, transport: transport)
        defer { s.close() }
        // `connecting` is reported in `init` (before a `states()` stream can exist): the state says it.
        #expect(s.state == .connecting)
        let states = States(s)
        _ = try await Self.within { try await s.board("default") }
        #expect(s.state == .connected)
        #expect(await until { states.all.contains(.connected) }, "\(states.all)")
        #expect(try await until { try d.metricValue("foldsync_connections") == 1 })
        let opened = try d.metricValue("foldsync_connections_opened_total")
        s.close()
        #expect(await until { s.state == .closed && states.finished }, "\(states.all)")
        #expect(try await until { try d.metricValue("foldsync_connections") == 0 }, "the connection was closed")
        // Nothing reconnects: no new connection within well past the first backoff (0.5 s at most).
        let reconnected = try await until(1.5) {
            try s.state != .closed || d.metricValue("foldsync_connections_opened_total") != opened
        }
        #expect(!reconnected, "a connection after close(): state \(s.state)")
        let seen = states.all
        #expect(seen == [.connected, .closed], "\(seen)")
    }

    @Test func reconnect_with_backoff() async throws {
        let r = try Rig()
        defer { r.end() }
        let (d, s) = (r.daemon, r.session)
        let states = States(s)
        _ = try await Self.within { try await s.board("default") }
        #expect(d.stop() == 0)
        #expect(await until {
            states.all.contains { if case .disconnected(let reason, let delay) = $0 { !reason.isEmpty && delay > 0 && delay <= 10 } else { false } }
        }, "\(states.all)")
        try d.restart(samePort: true)
        #expect(await until(15) { s.state == .connected && states.all.last == .connected }, "\(states.all)")
        let seen = states.all
        let lost = try #require(seen.firstIndex { if case .disconnected = $0 { true } else { false } })
        #expect(seen[(lost + 1)...].contains(.connecting) && seen.last == .connected, "\(seen)")
        // Every delay announced is within the cap.
        #expect(seen.allSatisfy { if case .disconnected(_, let delay) = $0 { delay <= 10 } else { true } }, "\(seen)")
        #expect(try await Self.within { try await r.session.board("default").toggle("s0") } == 1, "same store: the board goes on")
    }

    @Test func resume_since() async throws {
        let r = try Rig()
        defer { r.end() }
        let d = r.daemon
        let model = try await Self.within { try await r.session.board("default") }
        let changes = Recorder(model)
        let states = States(r.session)
        #expect(try await Self.within { try await model.toggle("s0") } == 1)
        // The main actor is held from here until the POSTs are done: the
        // session cannot reconnect before all three changes were made.
        #expect(d.stop() == 0)
        try d.restart(samePort: true)
        for s in ["s1", "s2", "s0"] { _ = try d.curlJSON("POST", "/api/boards/default/actions", body: #"{"type":"toggle","section":"\#(s)"}"#) }
        #expect(await until(15) { model.rev == 4 && changes.changes.filter { !$0.local }.count >= 4 }, "rev \(model.rev ?? -1)")
        #expect(states.all.contains { if case .disconnected = $0 { true } else { false } }, "the client was away: \(states.all)")
        // The toggle showed at once, before its patch: a local change at rev 0.
        #expect(changes.changes.first.map { $0.local && $0.rev == 0 } == true)
        let revs = changes.changes.filter { !$0.local }.map(\.rev)
        #expect(revs == [1, 2, 3, 4], "\(revs)")
        #expect(changes.changes.filter { !$0.local }.allSatisfy { $0.ops != nil }, "patches, each with its ops")
        #expect(!changes.changes.contains { $0.resynced }, "a snapshot instead of the missed patches")
        #expect(try d.metricValue("foldsync_resumes_total") ?? 0 >= 1)
        let expected = try d.curlJSON("GET", "/api/boards/default")["state"]
        #expect(model.confirmed?.json == expected && model.board?.json == expected)
    }

    @Test func resync_epoch_changed() async throws {
        let r = try Rig()
        defer { r.end() }
        let d = r.daemon
        _ = try d.curlJSON("PUT", "/api/boards/tmp", body: #"{"mode":"multi","sections":[]}"#)
        let model = try await Self.within { try await r.session.board("tmp") }
        let changes = Recorder(model)
        let epoch = try #require(model.epoch)
        _ = try d.curlJSON("DELETE", "/api/boards/tmp")
        #expect(await until { model.board == nil && model.confirmed == nil })
        _ = try d.curlJSON("PUT", "/api/boards/tmp", body: #"{"mode":"single","sections":[{"id":"x","title":"X","items":[],"expanded":false}]}"#)
        #expect(await until { changes.changes.contains { $0.resynced && $0.reason == "epoch" } }, "\(changes.changes.map { ($0.rev, $0.reason) })")
        let c = try #require(changes.changes.first { $0.resynced })
        #expect(c.reason == "epoch" && c.ops == nil && c.epoch != epoch)
        let get = try d.curlJSON("GET", "/api/boards/tmp")
        #expect(model.epoch != epoch && model.epoch == get["epoch"]?.stringValue)
        #expect(model.confirmed?.json == get["state"] && model.sections.map(\.id) == ["x"])
    }

    /// A static token as a value; a function called at every connect.
    @Test func token_value_and_function() async throws {
        let hash = try sha256Hex("kit-secret-1")
        let d = try DaemonProcess(["--token", "lib read,fold \(hash)"])
        defer { d.shutdown() }
        let transport = try LWSTransport()
        defer { transport.shutdown() }
        let url = URL(string: d.url)!
        let byValue = FoldSyncSession(url: url, token: .value("kit-secret-1"), transport: transport)
        defer { byValue.close() }
        #expect(try await Self.within { try await byValue.board("default").toggle("s0") } == 1)
        let calls = Counter()
        let byFunction = FoldSyncSession(url: url, token: .provider({ calls.add(); return "kit-secret-1" }), transport: transport)
        defer { byFunction.close() }
        let states = States(byFunction)
        let model = try await Self.within { try await byFunction.board("default") }
        #expect(calls.value == 1)
        #expect(d.stop() == 0)
        try d.restart(samePort: true)
        #expect(await until(15) { calls.value >= 2 && byFunction.state == .connected }, "calls \(calls.value)")
        // Once per connection attempt: the first (in init) and one per `connecting` since.
        let attempts = 1 + states.all.filter { $0 == .connecting }.count
        #expect(calls.value == attempts, "calls \(calls.value), attempts \(attempts): \(states.all)")
        #expect(byFunction.lastTokenFailure == nil)
        #expect(try await Self.within { try await model.toggle("s1") } == 2, "signed in again after the reconnect")
        // History is read with the same token: the provider's last one (the daemon refuses a read without).
        let page = try await Self.within { try await model.history() }
        #expect(page.entries.map(\.actor) == ["lib", "lib"], "\(page.entries.map(\.actor))")
        #expect(try await Self.within { try await byValue.board("default").history(since: 1) }.entries.map(\.rev) == [2])
        let refused = FoldSyncSession(url: url, token: .value("wrong"), transport: transport)
        defer { refused.close() }
        await #expect(throws: SyncError.self) { try await Self.within { try await refused.board("default") } }
        let none = FoldSyncSession(url: url, transport: transport)
        defer { none.close() }
        await #expect(throws: SyncError.self) { try await Self.within { try await none.board("default") } }
    }

    @Test func token_refreshed_on_auth_expiring() async throws {
        let python = try PyJWT.python()
        let dir = NSTemporaryDirectory() + "foldsync-kit-\(getpid())"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let secret = dir + "/jwt.secret"
        try Data((0..<48).map { _ in UInt8.random(in: 0...255) }).write(to: URL(fileURLWithPath: secret))
        let d = try DaemonProcess(["--jwt-key", "HS256:\(secret)", "--jwt-refresh-before", "2", "--jwt-leeway", "0"])
        defer { d.shutdown() }
        let transport = try LWSTransport()
        defer { transport.shutdown() }
        // Tokens of 6 s, each refreshed 2 s before its end: a minting Python
        // started on a loaded machine has time to fit.
        let life = 6
        let calls = Counter()
        let s = FoldSyncSession(url: URL(string: d.url)!, token: .provider({
            calls.add()
            return try PyJWT.mint(python: python, secret: secret, life: life, subject: "kit")
        }), transport: transport)
        defer { s.close() }
        let states = States(s)
        let model = try await Self.within { try await s.board("default") }
        let firstTokenEnds = Date().addingTimeInterval(Double(life))
        #expect(calls.value == 1)
        // Two refreshes in band, and well past the first token's end.
        #expect(await until(25) { calls.value >= 3 && Date() > firstTokenEnds.addingTimeInterval(1) }, "calls \(calls.value)")
        #expect(!states.all.contains { if case .disconnected = $0 { true } else { false } }, "\(states.all)")
        #expect(!states.all.contains(.connecting), "refreshed in band, never by reconnecting: \(states.all)")
        #expect(s.state == .connected && s.lastTokenFailure == nil)
        #expect(try d.metricValue("foldsync_token_expiries_total") ?? 0 == 0)
        #expect(try await Self.within { try await model.toggle("s1") } == 1, "the connection outlives the first token")
    }

    @Test func follow_and_focus() async throws {
        let d = try DaemonProcess()
        defer { d.shutdown() }
        let transport = try LWSTransport()
        defer { transport.shutdown() }
        let a = FoldSyncSession(url: URL(string: d.url)!, transport: transport)
        let b = FoldSyncSession(url: URL(string: d.url)!, transport: transport)
        defer { a.close(); b.close() }
        let ma = try await Self.within { try await a.board("default") }, mb = try await Self.within { try await b.board("default") }
        #expect(try await Self.within { try await ma.focus("s1", item: 0) } == 1)
        #expect(await until { mb.confirmed?.focus == Focus(section: "s1", item: 0) && mb.focus == Focus(section: "s1", item: 0) },
                "\(String(describing: mb.focus))")
        #expect(await until(5) { mb.viewers == 2 && mb.following == 2 }, "viewers \(mb.viewers ?? -1) following \(mb.following ?? -1)")
        a.follow(false)
        #expect(await until(5) { mb.following == 1 && mb.viewers == 2 }, "following \(mb.following ?? -1)")
        a.follow(true)
        #expect(await until(5) { mb.following == 2 })
        // A viewer that leaves is counted out.
        a.close()
        #expect(await until(5) { mb.viewers == 1 && mb.following == 1 }, "viewers \(mb.viewers ?? -1)")
    }

    /// The harness's waits: the main actor held by something else (here a
    /// task that blocks it for 6 s, as another test's synchronous step or a
    /// stalled host would) is not counted against a 5 s wait for the board.
    @Test func aStalledMainActorIsNotCountedAgainstAWait() async throws {
        let r = try Rig()
        defer { r.end() }
        Task { @MainActor in usleep(6_000_000) }
        let model = try await Self.within(5) { try await r.session.board("default") }
        #expect(model.rev == 0)
    }

    @Test func helpers() async throws {
        let r = try Rig()
        defer { r.end() }
        let model = try await Self.within { try await r.session.board("default") }
        func open() -> [Bool] { model.confirmed?.sections.map(\.expanded) ?? [] }
        #expect(try await Self.within { try await model.expand("s2") } == 1)
        #expect(open() == [false, false, true] && model.isOpen("s2"))
        #expect(try await Self.within { try await model.collapse("s2") } == 2)
        #expect(open() == [false, false, false] && !model.isOpen("s2"))
        #expect(try await Self.within { try await model.act(.setMode(.multi)) } == 3)
        #expect(try await Self.within { try await model.expandAll() } == 4)
        #expect(open() == [true, true, true])
        #expect(try await Self.within { try await model.collapseAll() } == 5)
        #expect(open() == [false, false, false])
        #expect(try await Self.within { try await model.focus("s0", item: 0) } == 6)
        #expect(model.confirmed?.focus == Focus(section: "s0", item: 0))
        #expect(try await Self.within { try await model.clearFocus() } == 7)
        #expect(model.confirmed?.focus == nil)
        #expect(try await Self.within { try await model.revert(7) } == 8, "undoing the clearFocus brings the focus back")
        #expect(model.confirmed?.focus == Focus(section: "s0", item: 0) && model.focus == Focus(section: "s0", item: 0))
        let expected = try r.daemon.curlJSON("GET", "/api/boards/default")["state"]
        #expect(model.confirmed?.json == expected && model.board?.json == expected)
        // The contract's `history` helper: GET /api/boards/NAME/history, read over
        // HTTP beside the socket through the transport (LWSTransport.get here).
        let all = try await Self.within { try await model.history() }
        #expect(all.board == "default" && all.epoch == model.epoch && all.rev == 8 && !all.more)
        #expect(all.entries.map(\.rev) == Array(1...8), "\(all.entries.map(\.rev))")
        #expect(all.entries.map(\.type) == ["expand", "collapse", "setMode", "expandAll", "collapseAll", "focus", "clearFocus", "revert"],
                "\(all.entries.map(\.type))")
        #expect(all.entries.allSatisfy { $0.actor == "anonymous" && $0.session?.hasPrefix("c") == true && $0.summary?.isEmpty == false && !$0.ops.isEmpty })
        #expect(all.entries.allSatisfy { ($0.at ?? 0) > 1_700_000_000_000 && $0.inverse?.isEmpty == false })
        #expect(all.entries.last?.action?["rev"]?.intValue == 7, "the revert names the rev it undid")
        #expect(all.entries.first?.action?["section"]?.stringValue == "s2")
        // The page as the daemon serves it to curl.
        let byCurl = try r.daemon.curlJSON("GET", "/api/boards/default/history")
        #expect(byCurl["entries"]?.arrayValue?.compactMap { $0["summary"]?.stringValue } == all.entries.compactMap(\.summary))
        // limit: the latest ones, `more` set; since: the ones after; before: page backwards.
        let last3 = try await Self.within { try await model.history(limit: 3) }
        #expect(last3.entries.map(\.rev) == [6, 7, 8] && last3.more, "\(last3.entries.map(\.rev)) more \(last3.more)")
        let after6 = try await Self.within { try await model.history(since: 6) }
        #expect(after6.entries.map(\.rev) == [7, 8] && !after6.more, "\(after6.entries.map(\.rev))")
        let first2 = try await Self.within { try await model.history(since: 0, limit: 2) }
        #expect(first2.entries.map(\.rev) == [1, 2] && first2.more)
        let back = try await Self.within { try await model.history(before: 6, limit: 2) }
        #expect(back.entries.map(\.rev) == [4, 5] && back.more)
        #expect(try await Self.within { try await model.history(since: 8) }.entries.isEmpty)
        // The daemon's refusals are typed errors.
        await #expect { try await Self.within { try await model.history(since: 1, before: 2) } } throws: {
            ($0 as? SyncError)?.code == "bad_request"
        }
        await #expect { try await Self.within { try await model.history(limit: 0) } } throws: { ($0 as? SyncError)?.code == "bad_request" }
        #expect(r.session.state == .connected, "an HTTP read leaves the socket alone")
    }

    // MARK: the outbox, through a relay that cuts the link

    @Test func action_kept_while_offline() async throws {
        let r = try Rig(relayed: true)
        defer { r.end() }
        let model = try await Self.within { try await r.session.board("default") }
        let changes = Recorder(model)
        #expect(await r.offline())
        let toggle = Outcome { try await model.toggle("s1") }
        await Self.started { model.pending == 1 }
        #expect(model.pending == 1 && model.isOpen("s1"), "kept and shown at once")
        #expect(model.confirmed?.sections[1].expanded == false)
        #expect(await until(0.5) { toggle.value != nil } == false, "kept, not refused: \(String(describing: toggle.value))")
        #expect(try r.get()["rev"]?.intValue == 0)
        r.relay!.accept()
        #expect(await until(15) { toggle.value != nil })
        #expect(toggle.rev == 1, "\(String(describing: toggle.value))")
        // Resubscribed before it was sent: the patch for its rev reached the model before the ack.
        #expect(model.rev == 1 && model.confirmed?.sections[1].expanded == true)
        #expect(r.session.state == .connected && model.pending == 0)
        #expect(try r.get()["rev"]?.intValue == 1 && r.expanded("s1") == true, "the board changed once")
        #expect(changes.changes.filter { !$0.local }.map(\.rev) == [1], "\(changes.changes.map { ($0.rev, $0.local, $0.reason) })")
        #expect(try r.daemon.metricValue("foldsync_duplicate_actions_total") == 0)
    }

    @Test func action_cut_before_ack_applied_once() async throws {
        let r = try Rig(relayed: true)
        defer { r.end() }
        let states = States(r.session)
        let model = try await Self.within { try await r.session.board("default") }
        r.relay!.cutNext(.afterForwarding)
        let rev = try await Self.within { try await model.toggle("s1") }
        #expect(rev == 1, "the rev of the first commit")
        #expect(states.all.contains { if case .disconnected = $0 { true } else { false } }, "the link was cut: \(states.all)")
        #expect(try r.get()["rev"]?.intValue == 1 && r.expanded("s1") == true, "applied once")
        #expect(try r.daemon.metricValue("foldsync_duplicate_actions_total") == 1, "sent again with its key: the resend was a repeat")
        #expect(await until { model.rev == 1 && model.pending == 0 && model.confirmed?.sections[1].expanded == true })
        #expect(try await Self.within { try await model.toggle("s0") } == 2, "and nothing else was applied")
    }

    @Test func action_cut_before_sent_applied_once() async throws {
        let r = try Rig(relayed: true)
        defer { r.end() }
        let states = States(r.session)
        let model = try await Self.within { try await r.session.board("default") }
        r.relay!.cutNext(.instead)
        let rev = try await Self.within { try await model.toggle("s1") }
        #expect(rev == 1)
        #expect(states.all.contains { if case .disconnected = $0 { true } else { false } }, "the link was cut: \(states.all)")
        #expect(try r.get()["rev"]?.intValue == 1 && r.expanded("s1") == true)
        #expect(try r.daemon.metricValue("foldsync_duplicate_actions_total") == 0, "the daemon saw it once")
        #expect(await until { model.rev == 1 && model.pending == 0 })
    }

    @Test func outbox_bounds_expire() async throws {
        let r = try Rig(relayed: true, outbox: OutboxLimits(maxActions: 2, maxAge: 1))
        defer { r.end() }
        let model = try await Self.within { try await r.session.board("default") }
        #expect(await r.offline())
        let kept = [Outcome { try await model.toggle("s0") }, Outcome { try await model.toggle("s1") }]
        await Self.started { model.pending == 2 }
        #expect(model.pending == 2)
        let calledAt = Date()
        await #expect { try await model.toggle("s2") } throws: { ($0 as? SyncError)?.code == "expired" }
        #expect(Date().timeIntervalSince(calledAt) < 0.5, "refused at once")
        #expect(kept.allSatisfy { $0.value == nil }, "the two that wait still wait")
        #expect(await until(5) { kept.allSatisfy { $0.value != nil } })
        #expect(kept.map(\.code) == ["expired", "expired"], "\(kept.map(\.value))")
        #expect(model.pending == 0 && model.board == model.confirmed, "rolled back")
        r.relay!.accept()
        #expect(await until(15) { r.session.state == .connected })
        #expect(try r.get()["rev"]?.intValue == 0, "never applied")
        // Nothing of theirs is left to send: the next action is the board's first change.
        #expect(try await Self.within { try await model.toggle("s2") } == 1)
        #expect(try r.get()["rev"]?.intValue == 1 && r.expanded("s0") == false && r.expanded("s1") == false)
    }

    @Test func sent_action_past_age_is_settled() async throws {
        let r = try Rig(relayed: true, outbox: OutboxLimits(maxActions: 10, maxAge: 1))
        defer { r.end() }
        let relay = r.relay!
        let model = try await Self.within { try await r.session.board("default") }
        // Reached the daemon, answer lost, kept past its age: settled, and it had been applied.
        relay.cutNext(.afterForwarding, thenRefuse: true)
        let applied = Outcome { try await model.toggle("s1") }
        #expect(await until { if case .disconnected = r.session.state { true } else { false } })
        // Time passes beyond the age bound (1 s) with no connection.
        try await Task.sleep(nanoseconds: 2_000_000_000)
        #expect(applied.value == nil)
        #expect(try r.get()["rev"]?.intValue == 1, "it reached the daemon")
        relay.accept()
        #expect(await until(15) { applied.value != nil })
        #expect(applied.rev == 1, "\(String(describing: applied.value))")
        // Answered by its key (the daemon counts a settle of an applied key as a repeat): applied once.
        #expect(try r.daemon.metricValue("foldsync_duplicate_actions_total") == 1)
        #expect(try r.get()["rev"]?.intValue == 1 && r.expanded("s1") == true)
        // Dropped on the way, kept past its age: settled, never applied, and now never will be.
        relay.cutNext(.instead, thenRefuse: true)
        let lost = Outcome { try await model.toggle("s2") }
        #expect(await until { if case .disconnected = r.session.state { true } else { false } })
        try await Task.sleep(nanoseconds: 2_000_000_000)
        #expect(lost.value == nil)
        relay.accept()
        #expect(await until(15) { lost.value != nil })
        #expect(lost.code == "expired", "\(String(describing: lost.value))")
        #expect(try r.get()["rev"]?.intValue == 1 && r.expanded("s2") == false)
        #expect(await until { model.pending == 0 && model.board == model.confirmed && !model.isOpen("s2") })
        // Never applied afterwards either: the next action is rev 2.
        #expect(try await Self.within { try await model.toggle("s0") } == 2)
        #expect(try r.get()["rev"]?.intValue == 2 && r.expanded("s2") == false)
    }

    @Test func random_cuts_exactly_once() async throws {
        let r = try Rig(relayed: true)
        defer { r.end() }
        let model = try await Self.within { try await r.session.board("default") }
        #expect(try await Self.within { try await model.act(.setMode(.multi)) } == 1)
        var random = SplitMix64(seed: 4041)
        var flags = [false, false, false]
        var last = 1
        var resolutions = 0
        for round in 0..<200 {
            let s = Int(random.next() % 3)
            switch random.next() % 3 {
            case 0: r.relay!.cutNext(.afterForwarding)
            case 1: r.relay!.cutNext(.instead)
            default: break
            }
            let rev = try await Self.within { try await model.toggle("s\(s)") }
            resolutions += 1
            #expect(rev == last + 1, "round \(round): rev \(rev) after \(last)")
            last = rev
            flags[s].toggle()
        }
        #expect(resolutions == 200)
        let got = try r.get()
        #expect(got["rev"]?.intValue == 201)
        #expect((0..<3).map { Self.section(got["state"], "s\($0)")?["expanded"]?.boolValue } == flags.map { Optional($0) })
        #expect(await until { model.rev == 201 && model.pending == 0 })
        #expect(model.confirmed?.sections.map(\.expanded) == flags && model.confirmed?.json == got["state"])
    }

    /// backoff_vectors and mirror_vectors: the session's backoff and mirror are
    /// SessionMachine's (FoldSession), FoldCore's `Backoff` and `BoardMirror`,
    /// which FoldSessionTests and SharedVectorTests run over Tests/vectors.
    @Test func everyContractCaseHasATest() throws {
        let cases = try JSONParser.parse([UInt8](Data(contentsOf: URL(fileURLWithPath: Self.repo + "/clients/contract/cases.json"))), maxDepth: 8)
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        let source = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".swift") }
            .map { try String(contentsOfFile: folder.appendingPathComponent($0).path, encoding: .utf8) }.joined()
        let byVectors: Set<String> = ["backoff_vectors", "mirror_vectors"]
        let list = cases["cases"]?.arrayValue ?? []
        #expect(list.count >= 20)
        for c in list {
            let id = try #require(c["id"]?.stringValue)
            #expect(byVectors.contains(id) || source.contains("func \(id)()"), "no test for contract case \(id)")
        }
    }

    // MARK: helpers

    /// A daemon, optionally a relay in front of it, a transport and a session, ended together.
    @MainActor struct Rig {
        let daemon: DaemonProcess
        let relay: CuttingRelay?
        let transport: LWSTransport
        let session: FoldSyncSession
        init(relayed: Bool = false, outbox: OutboxLimits = OutboxLimits()) throws {
            daemon = try DaemonProcess()
            relay = relayed ? try CuttingRelay(to: UInt16(daemon.port)) : nil
            transport = try LWSTransport()
            let url = relay.map { "ws://127.0.0.1:\($0.port)/ws" } ?? daemon.url
            session = FoldSyncSession(url: URL(string: url)!, outbox: outbox, transport: transport)
        }
        func end() {
            session.close()
            relay?.stop()
            transport.shutdown()
            daemon.shutdown()
        }
        func get() throws -> JSON { try daemon.curlJSON("GET", "/api/boards/default") }
        func expanded(_ section: String) throws -> Bool? { SessionContractTests.section(try get()["state"], section)?["expanded"]?.boolValue }
        func offline() async -> Bool {
            relay?.goDown()
            return await until { if case .disconnected = session.state { true } else { false } }
        }
    }

    /// Changes in arrival order.
    @MainActor final class Recorder {
        var changes: [BoardChange] = []
        init(_ model: BoardModel) {
            let stream = model.changes()
            Task { @MainActor in for await c in stream { self.changes.append(c) } }
        }
    }

    /// States in arrival order, and whether the stream has ended.
    @MainActor final class States {
        var all: [SyncState] = []
        var finished = false
        init(_ session: FoldSyncSession) {
            let stream = session.states()
            Task { @MainActor in
                for await s in stream { self.all.append(s) }
                self.finished = true
            }
        }
    }

    /// The outcome of work (an action, a subscribe) run in a task of its own.
    @MainActor final class Outcome<T> {
        var value: Result<T, Error>?
        private(set) var task: Task<Void, Never>?
        init(_ work: @escaping @MainActor () async throws -> T) {
            task = Task { @MainActor in
                do { self.value = .success(try await work()) } catch { self.value = .failure(error) }
            }
        }
        var code: String? { if case .failure(let e as SyncError)? = value { e.code } else { nil } }
    }

    /// `work`'s answer, or a failure after `seconds`: a case that goes wrong
    /// ends (its task is cancelled and left behind) instead of hanging the suite.
    @discardableResult
    static func within<T>(_ seconds: Double = 30, _ work: @escaping @MainActor () async throws -> T) async throws -> T {
        let outcome = Outcome(work)
        var budget = PollBudget(seconds: seconds, now: PollBudget.now)
        guard await until(&budget, { outcome.value != nil }), let value = outcome.value else {
            outcome.task?.cancel()
            throw HarnessError("no answer within \(Int(seconds)) s (\(budget.description))")
        }
        return try value.get()
    }

    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var n = 0
        func add() { lock.lock(); n += 1; lock.unlock() }
        var value: Int { lock.lock(); defer { lock.unlock() }; return n }
    }


    /// Lets a task just created on the main actor run up to its first suspension.
    static func started(_ condition: () -> Bool) async {
        for _ in 0..<1000 where !condition() { await Task.yield() }
    }

    nonisolated static func section(_ board: JSON?, _ id: String) -> JSON? {
        board?["sections"]?.arrayValue?.first { $0["id"]?.stringValue == id }
    }

}

extension SessionContractTests.Outcome where T == Int {
    var rev: Int? { if case .success(let r)? = value { r } else { nil } }
}
