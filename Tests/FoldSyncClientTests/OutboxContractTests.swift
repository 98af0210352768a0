import FoldCore
import FoldSyncClient
import FoldTestSupport
import Foundation
import Testing

/// The outbox against the real daemon, through a relay that cuts the link
/// where an action is most at risk (clients/contract/cases.json).
@Suite(.serialized) struct OutboxContractTests {
    /// A daemon, a relay in front of it, and a client of the relay.
    struct Rig {
        let daemon: DaemonProcess
        let relay: CuttingRelay
        let client: FoldSyncClient
        init(outbox: OutboxLimits = OutboxLimits()) throws {
            daemon = try DaemonProcess()
            relay = try CuttingRelay(to: UInt16(daemon.port))
            client = try FoldSyncClient(url: "ws://127.0.0.1:\(relay.port)/ws", outbox: outbox)
        }
        func end() {
            client.close()
            relay.stop()
            daemon.shutdown()
        }
        func get() throws -> JSON { try daemon.curlJSON("GET", "/api/boards/default") }
        func expanded(_ section: String) throws -> Bool? { try get()["state"]?.section(section)?["expanded"]?.boolValue }
        func offline() async -> Bool {
            relay.goDown()
            return await until { if case .disconnected = client.state { true } else { false } }
        }
    }

    /// The outcome of an action run in a task of its own.
    final class Outcome: @unchecked Sendable {
        private let lock = NSLock()
        private var result: Result<Int, Error>?
        var value: Result<Int, Error>? { lock.withLock { result } }
        init(_ work: @escaping @Sendable () async throws -> Int) {
            Task {
                do { let rev = try await work(); lock.withLock { result = .success(rev) } } catch { lock.withLock { result = .failure(error) } }
            }
        }
        var code: String? { if case .failure(let e as SyncError)? = value { e.code } else { nil } }
        var rev: Int? { if case .success(let r)? = value { r } else { nil } }
    }

    @Test func action_kept_while_offline() async throws {
        let r = try Rig()
        defer { r.end() }
        let board = try await r.client.subscribe("default")
        #expect(await r.offline())
        let toggle = Outcome { try await board.toggle("s1") }
        try await Task.sleep(nanoseconds: 300_000_000)
        #expect(toggle.value == nil, "kept, not refused")
        #expect(try r.get()["rev"]?.intValue == 0)
        r.relay.accept()
        #expect(await until(15) { toggle.value != nil })
        #expect(toggle.rev == 1, "\(String(describing: toggle.value))")
        #expect(try r.get()["rev"]?.intValue == 1 && r.expanded("s1") == true)
    }

    @Test func action_cut_before_ack_applied_once() async throws {
        let r = try Rig()
        defer { r.end() }
        let board = try await r.client.subscribe("default")
        r.relay.cutNext(.afterForwarding)
        let rev = try await board.toggle("s1")
        #expect(rev == 1)
        #expect(try r.get()["rev"]?.intValue == 1 && r.expanded("s1") == true, "applied once")
        #expect(try r.daemon.metricValue("foldsync_duplicate_actions_total") == 1, "the resend was a repeat")
    }

    @Test func action_cut_before_sent_applied_once() async throws {
        let r = try Rig()
        defer { r.end() }
        let board = try await r.client.subscribe("default")
        r.relay.cutNext(.instead)
        let rev = try await board.toggle("s1")
        #expect(rev == 1)
        #expect(try r.get()["rev"]?.intValue == 1 && r.expanded("s1") == true)
        #expect(try r.daemon.metricValue("foldsync_duplicate_actions_total") == 0, "the daemon saw it once")
    }

    @Test func outbox_bounds_expire() async throws {
        let r = try Rig(outbox: OutboxLimits(maxActions: 2, maxAge: 1))
        defer { r.end() }
        let board = try await r.client.subscribe("default")
        #expect(await r.offline())
        let kept = [Outcome { try await board.toggle("s0") }, Outcome { try await board.toggle("s1") }]
        try await Task.sleep(nanoseconds: 200_000_000)
        await #expect { try await board.toggle("s2") } throws: { ($0 as? SyncError)?.code == "expired" }
        #expect(await until(5) { kept.allSatisfy { $0.value != nil } })
        #expect(kept.map(\.code) == ["expired", "expired"], "\(kept.map(\.value))")
        r.relay.accept()
        #expect(await until(15) { r.client.state == .connected })
        try await Task.sleep(nanoseconds: 300_000_000)
        #expect(try r.get()["rev"]?.intValue == 0, "never applied")
    }

    @Test func sent_action_past_age_is_settled() async throws {
        let r = try Rig(outbox: OutboxLimits(maxActions: 10, maxAge: 1))
        defer { r.end() }
        let board = try await r.client.subscribe("default")
        // Reached the daemon, answer lost, kept past its age: settled, and it had been applied.
        r.relay.cutNext(.afterForwarding, thenRefuse: true)
        let applied = Outcome { try await board.toggle("s1") }
        try await Task.sleep(nanoseconds: 2_000_000_000)
        #expect(applied.value == nil)
        r.relay.accept()
        #expect(await until(15) { applied.value != nil })
        #expect(applied.rev == 1, "\(String(describing: applied.value))")
        // Dropped on the way, kept past its age: settled, never applied, and now never will be.
        r.relay.cutNext(.instead, thenRefuse: true)
        let lost = Outcome { try await board.toggle("s2") }
        try await Task.sleep(nanoseconds: 2_000_000_000)
        r.relay.accept()
        #expect(await until(15) { lost.value != nil })
        #expect(lost.code == "expired", "\(String(describing: lost.value))")
        #expect(try r.get()["rev"]?.intValue == 1 && r.expanded("s2") == false)
    }

    @Test func random_cuts_exactly_once() async throws {
        let r = try Rig()
        defer { r.end() }
        let board = try await r.client.subscribe("default")
        _ = try await board.act(.setMode(.multi))
        var random = SplitMix64(seed: 4040)
        var flags = [false, false, false]
        var last = 1
        for round in 0..<200 {
            let s = Int(random.next() % 3)
            switch random.next() % 3 {
            case 0: r.relay.cutNext(.afterForwarding)
            case 1: r.relay.cutNext(.instead)
            default: break
            }
            let rev = try await board.toggle("s\(s)")
            #expect(rev == last + 1, "round \(round): rev \(rev) after \(last)")
            last = rev
            flags[s].toggle()
        }
        let got = try r.get()
        #expect(got["rev"]?.intValue == 201)
        #expect((0..<3).map { got["state"]?.section("s\($0)")?["expanded"]?.boolValue } == flags.map { Optional($0) })
    }

}

extension JSON {
    /// The section with `id` in a board document.
    func section(_ id: String) -> JSON? {
        self["sections"]?.arrayValue?.first { $0["id"]?.stringValue == id }
    }
}
