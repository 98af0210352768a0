import FoldTransport
import Testing

@Suite struct EndpointTests {
    @Test func parsesWebSocketAndHTTPURLs() {
        #expect(Endpoint(url: "ws://127.0.0.1:7681/ws") == Endpoint(secure: false, host: "127.0.0.1", port: 7681, path: "/ws"))
        #expect(Endpoint(url: "wss://example.org/x/ws?a=1") == Endpoint(secure: true, host: "example.org", port: 443, path: "/x/ws?a=1"))
        #expect(Endpoint(url: "http://[::1]:8080") == Endpoint(secure: false, host: "::1", port: 8080, path: "/"))
        #expect(Endpoint(url: "ws://[::1]:8080/ws")?.authority == "[::1]:8080")
        for bad in ["ftp://x/", "ws://", "ws://h:0/", "ws://h:x/", "127.0.0.1:7681"] {
            #expect(Endpoint(url: bad) == nil, "\(bad)")
        }
    }
}
