import FoldConfig
import Testing

/// SIGHUP's re-read configuration, as the option table plans it: each live
/// option applies at once, the others keep the running value until a
/// restart. (What the hub does with its settings: FoldHubTests' ReloadTests.)
@Suite struct ReloadPlanTests {
    /// A valid value, not the default, for every option in the table.
    static let samples: [String: String] = [
        "listen": "127.0.0.1:9999", "db": "/tmp/other.db", "log-level": "debug", "event-loop": "poll",
        "web-root": "/srv/web", "max-message-bytes": "1024", "max-body-bytes": "2048", "coalesce-ms": "5",
        "history-per-board": "7", "history-days": "0.5", "action-key-hours": "48", "action-keys-per-board": "500", "max-boards": "3", "max-sections": "4", "max-items": "5", "max-title-bytes": "6",
        "max-item-bytes": "7", "max-board-bytes": "100", "max-queue-frames": "9", "max-queue-bytes": "5000",
        "slow-client-timeout": "3", "ping-interval": "4", "handshake-timeout": "5", "store-busy-timeout": "6",
        "shutdown-timeout": "7", "token": "late read \(String(repeating: "ab", count: 32))", "allow-anonymous": "true",
        "allow-origin": "https://a.example", "allow-query-token": "true", "metrics-public": "true", "auth-timeout": "8",
        "max-connections": "9", "max-connections-per-ip": "10", "per-ip-counts-loopback": "true",
        "max-actions-per-second": "11", "action-burst": "12", "max-subscriptions": "13",
        "tls-cert": "/etc/c.pem", "tls-key": "/etc/k.pem", "store": "postgresql://foldsync@127.0.0.1:5432/foldsync",
        "jwt-key": "RS256:/etc/foldsync/idp.pem:kid=k1", "jwt-issuer": "https://idp.example", "jwt-audience": "foldsync",
        "jwt-leeway": "5", "jwt-refresh-before": "20", "stream-heartbeat": "3", "board-idle": "9",
    ]

    @Test func everyOptionHasASample() {
        #expect(Set(OptionTable.options.map(\.key)) == Set(Self.samples.keys))
    }

    @Test(arguments: OptionTable.options.map(\.key))
    func eachOptionAppliesLiveOrWaitsForARestart(key: String) throws {
        let option = try #require(OptionTable.find(key))
        var fresh = DaemonConfig()
        #expect(option.apply(&fresh, Self.samples[key]!) == nil)
        let plan = ReloadPlan(from: DaemonConfig(), to: fresh)
        if option.live {
            #expect(plan.changed.count == 1 && plan.changed[0].hasPrefix("\(key) "), "\(plan.changed)")
            #expect(option.show(plan.applied) == option.show(fresh))
        } else {
            #expect(plan.changed.isEmpty && plan.needsRestart == [key])
            #expect(option.show(plan.applied) == option.show(DaemonConfig()), "kept until a restart")
        }
        #expect(plan.previous == DaemonConfig())
    }

    @Test func aLoweredLimitIsReportedOldToNew() {
        var fresh = DaemonConfig()
        fresh.limits.maxSections = 3
        #expect(ReloadPlan(from: DaemonConfig(), to: fresh).changed == ["max-sections 5000 -> 3"])
        #expect(ReloadPlan(from: fresh, to: fresh).changed == [])
    }

    @Test func theTableRefusesABadValueInTheFirstPlace() {
        var scratch = DaemonConfig()
        #expect(OptionTable.find("max-items")!.apply(&scratch, "lots") != nil)
        #expect(OptionTable.find("listen")!.apply(&scratch, "nope") != nil)
        #expect(scratch == DaemonConfig())
    }
}
