import FoldCore
import FoldSyncKit
import FoldTestSupport
import Foundation
import Testing

/// `URLSessionTransport` against the real daemon. On Linux,
/// swift-corelibs-foundation has WebSockets compiled out (error -1002,
/// "WebSockets not supported by libcurl"), so the session cannot connect:
/// that is recorded as a known issue. The day a toolchain supports it, the
/// known issue stops being recorded and this test fails, saying so.
@Suite @MainActor struct URLSessionTransportTests {
    @Test func aSessionOnURLSessionReachesTheDaemon() async throws {
        let d = try DaemonProcess()
        defer { d.shutdown() }
        let link = URLSessionTransport().open(URL(string: d.url)!, subprotocol: "foldsync.v1", headers: [:])
        var first: String?
        var end: Error?
        do {
            for try await text in link.incoming { first = text; break }
        } catch {
            end = error
        }
        link.close(reason: "bye")
        #if os(Linux)
        // What Linux says today: the link ends before any message.
        #expect(first == nil)
        guard case .failed(let why)? = end as? SyncLinkEnd else {
            Issue.record("the link ended with \(String(describing: end)), not a failure to open")
            return
        }
        #expect(why.contains("-1002") || why.contains("unsupportedURL"), "\(why)")
        withKnownIssue("swift-corelibs-foundation has no WebSocket support (URLError -1002)") {
            #expect(first?.contains("\"hello\"") == true, "ended with \(String(describing: end))")
        }
        #else
        #expect(first?.contains("\"hello\"") == true, "ended with \(String(describing: end))")
        #endif
    }
}
