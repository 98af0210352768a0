import FoldCore

/// One HTTP transaction in flight. Service thread only.
final class HTTPState {
    let id: UInt64
    let wsi: OpaquePointer
    let method: String
    let path: String
    let query: String
    let headers: [String: String]
    let peer: String
    var body: [UInt8] = []
    var response: HTTPResponse?
    var headersSent = false
    var bodyOffset = 0
    /// The body was refused unread, so the connection cannot carry another request.
    var closeAfter = false
    /// Set when the answer is an event stream (`openStream`): what it has queued.
    var stream: StreamOut?

    init(id: UInt64, wsi: OpaquePointer, method: String, path: String, query: String, headers: [String: String], peer: String) {
        self.id = id
        self.wsi = wsi
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.peer = peer
    }

    var request: HTTPRequest {
        HTTPRequest(id: id, method: method, path: path, query: query, headers: headers, body: body, peer: peer)
    }
}
