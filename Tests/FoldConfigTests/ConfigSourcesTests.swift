import FoldCore
import Testing
@testable import FoldConfig

/// The configuration is built from the file's text, the environment and
/// flags, in that order of strength; every problem is listed with its place.
@Suite struct ConfigSourcesTests {
    func sources(flags: [(String, String)] = [], environment: [String: String] = [:]) -> ConfigSources {
        var s = ConfigSources()
        s.file = "f.conf"
        s.flags = flags.map { (key: $0.0, value: $0.1) }
        s.environment = environment
        return s
    }

    @Test func flagsWinOverTheEnvironmentWhichWinsOverTheFile() {
        let (c, problems) = sources(flags: [("max-items", "3")], environment: ["FOLDSYNC_MAX_ITEMS": "2", "FOLDSYNC_MAX_SECTIONS": "9"])
            .resolve(.text("max-items = 1\nmax-sections = 8 # comment\nmax-boards=7\n"))
        #expect(problems.isEmpty)
        #expect(c.limits.maxItems == 3 && c.limits.maxSections == 9 && c.limits.maxBoards == 7)
    }

    @Test func aBadFileIsRefusedWithEveryProblemAndItsLine() {
        let (_, problems) = sources().resolve(.text("max-sections = 100\nmax-items = lots\nno-such-key = 1\njunk\n"))
        #expect(problems.map(\.place) == ["f.conf:2", "f.conf:3", "f.conf:4"])
        #expect(problems[0].message.hasPrefix("max-items expects an integer"))

        // What a refused reload reports (the hub keeps it in its status: FoldHubTests' ReloadTests).
        let why = problems.map(\.description).joined(separator: "; ")
        #expect(why.contains("f.conf:3") && why.contains("no-such-key"), "\(why)")
    }

    @Test func aRetiredKeyInAnOlderFileIsIgnoredButNoLongerAnOption() {
        let (c, problems) = sources().resolve(.text("io-uring = true\nmax-items = 3\n"))
        #expect(problems.isEmpty && c.limits.maxItems == 3)
        #expect(OptionTable.find("io-uring") == nil, "not in --help, not a flag")
        let (_, flag) = sources(flags: [("io-uring", "true")]).resolve(.none)
        #expect(flag.map(\.message) == ["unknown key 'io-uring'"])
    }

    @Test func wholeConfigurationChecks() {
        let (_, tls) = sources(flags: [("tls-cert", "/c.pem")]).resolve(.none)
        #expect(tls.map(\.place) == ["tls"])
        let (_, open) = sources(flags: [("listen", "0.0.0.0:1")]).resolve(.none)
        #expect(open.map(\.place) == ["listen"], "no tokens beyond loopback")
        let (_, unreadable) = sources().resolve(.unreadable)
        #expect(unreadable.map(\.place) == ["f.conf"])
    }

    @Test func environmentNames() {
        #expect(ConfigSources.environmentName("max-message-bytes") == "FOLDSYNC_MAX_MESSAGE_BYTES")
    }
}
