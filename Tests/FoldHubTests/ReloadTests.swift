import FoldCore
import FoldCrypto
import Testing
@testable import FoldHub

/// SIGHUP's re-read configuration: each live option applies at once, the
/// others wait for a restart, and a refused file changes nothing.
@Suite struct ReloadTests {
    /// A valid value, not the default, for every option in the table.
    static let samples: [String: String] = [
        "listen": "127.0.0.1:9999", "db": "/tmp/other.db", "log-level": "debug", "event-loop": "poll",
        "web-root": "/srv/web", "max-message-bytes": "1024", "max-body-bytes": "2048", "coalesce-ms": "5", "io-uring": "true",
        "history-per-board": "7", "history-days": "0.5", "max-boards": "3", "max-sections": "4", "max-items": "5", "max-title-bytes": "6",
        "max-item-bytes": "7", "max-board-bytes": "100", "max-queue-frames": "9", "max-queue-bytes": "5000",
        "slow-client-timeout": "3", "ping-interval": "4", "handshake-timeout": "5", "store-busy-timeout": "6",
        "shutdown-timeout": "7", "token": "late read \(String(repeating: "ab", count: 32))", "allow-anonymous": "true",
        "allow-origin": "https://a.example", "allow-query-token": "true", "metrics-public": "true", "auth-timeout": "8",
        "max-connections": "9", "max-connections-per-ip": "10", "per-ip-counts-loopback": "true",
        "max-actions-per-second": "11", "action-burst": "12", "max-subscriptions": "13",
        "tls-cert": "/etc/c.pem", "tls-key": "/etc/k.pem", "store": "postgresql://foldsync@127.0.0.1:5432/foldsync",
    ]

    @Test func everyOptionHasASample() {
        #expect(Set(OptionTable.options.map(\.key)) == Set(Self.samples.keys))
    }

    @Test(arguments: OptionTable.options.map(\.key))
    func eachOptionAppliesLiveOrWaitsForARestart(key: String) throws {
        let option = try #require(OptionTable.find(key))
        var fresh = DaemonConfig()
        #expect(option.apply(&fresh, Self.samples[key]!) == nil)
        let h = HubHarness()
        h.feed(.reload(fresh))
        let report = try #require(h.reports.last)
        #expect(report.refused == nil)
        if option.live {
            #expect(report.changed.count == 1 && report.changed[0].hasPrefix("\(key) "), "\(report.changed)")
            #expect(option.show(h.hub.config) == option.show(fresh))
        } else {
            #expect(report.changed.isEmpty && report.needsRestart == [key])
            #expect(option.show(h.hub.config) == option.show(DaemonConfig()), "kept until a restart")
        }
    }

    @Test func aLoweredLimitAppliesToTheNextAction() throws {
        let h = HubHarness()
        h.autoCommit = true
        h.open(1)
        var fresh = h.hub.config
        fresh.limits.maxSections = 3
        h.feed(.reload(fresh))
        #expect(h.reports.last?.changed == ["max-sections 5000 -> 3"])
        h.act(1, .addSection, #""section":{"title":"four"}"#)
        #expect(h.read(1).map(\.code) == ["invalid"])
        #expect(h.closes.isEmpty)
    }

    @Test func aRemovedTokenLosesItsRightsOnOpenConnections() throws {
        let hex = OpenSSLDigest().hex(Array("folder-secret".utf8))
        let folder = try AccessToken.parse("folder read,fold \(hex)").get()
        let admin = try AccessToken.parse("admin read,fold,edit,admin \(String(repeating: "cd", count: 32))").get()
        let h = HubHarness { $0.access.tokens = [admin, folder] }
        h.feed(.opened(id: 1, peer: "10.0.0.1", headers: ["authorization": "Bearer folder-secret"], batching: false))
        _ = h.read(1)
        var fresh = h.hub.config
        fresh.access.tokens = [admin]
        h.feed(.reload(fresh))
        h.subscribe(1)
        #expect(h.read(1).map(\.code) == ["forbidden"])
    }

    @Test func aRefusedConfigurationChangesNothing() throws {
        let h = HubHarness { $0.limits.maxSections = 4 }
        // What the daemon's configuration reader said about the file.
        h.feed(.reloadRefused("foldsyncd.conf:2: max-items expects an integer in 0...10000000, got 'lots'"))
        let report = try #require(h.reports.last)
        #expect(report.refused?.contains("max-items") == true && report.changed.isEmpty)
        #expect(report.config == h.hub.config && h.hub.config.limits.maxSections == 4)
        #expect(h.hub.statusLine.contains("last reload refused"))

        // The table is what refuses a bad value in the first place.
        var scratch = DaemonConfig()
        #expect(OptionTable.find("max-items")!.apply(&scratch, "lots") != nil)
        #expect(OptionTable.find("listen")!.apply(&scratch, "nope") != nil)

        // A good one afterwards clears the refusal.
        h.feed(.reload(h.hub.config))
        #expect(h.reports.last?.changed == [] && !h.hub.statusLine.contains("refused"))
    }
}
