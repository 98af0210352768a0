import FoldCore
import CLibWebSockets
@testable import FoldTransport
import Testing

/// lws has one log level and one sink per process: a client started in a
/// server's process (quiet: no lws lines) must not silence the server's
/// errors nor take the sink that counts its refusals.
@Suite struct LWSLogLevelTests {
    @Test func aQuietClientLeavesTheProcesssLevelAsItWas() throws {
        LWSLog.install(level: Int32(LLL_ERR))
        let client = WebClient(logger: .silent)
        try client.start()
        defer {
            client.stop()
            client.run()
        }
        #expect(lwsl_visible(Int32(LLL_ERR)) != 0, "errors still logged after a quiet client's start")
        #expect(LWSLog.level.withLock { $0 } & Int32(LLL_ERR) != 0)
    }
}
