import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `SyncTransport` on `URLSessionWebSocketTask` and `URLSession.data(for:)`:
/// the transport of iOS, iPadOS and macOS apps. It compiles on Linux too,
/// where swift-corelibs-foundation has WebSockets compiled out ("WebSockets
/// not supported by libcurl"): there every link ends with `failed`
/// (`URLSessionTransportTests` records it as a known issue), while `get`
/// (plain HTTP, FoundationNetworking) works.
public struct URLSessionTransport: SyncTransport {
    let session: URLSession

    public init(session: URLSession = .shared) { self.session = session }

    public func open(_ url: URL, subprotocol: String, headers: [String: String]) -> any SyncLink {
        var request = URLRequest(url: url)
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.setValue(subprotocol, forHTTPHeaderField: "Sec-WebSocket-Protocol")
        return URLSessionLink(task: session.webSocketTask(with: request))
    }

    public func get(_ url: URL, headers: [String: String]) async throws -> HTTPAnswer {
        var request = URLRequest(url: url)
        request.httpMethod = "GET"
        // Always asked afresh: a history page read from a cache would miss the latest changes.
        request.cachePolicy = .reloadIgnoringLocalCacheData
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await session.data(for: request)
        guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
        return HTTPAnswer(status: http.statusCode, body: [UInt8](data))
    }
}

/// One `URLSessionWebSocketTask`. The task is thread-safe (Foundation's
/// contract), so the link is too.
final class URLSessionLink: SyncLink, @unchecked Sendable {
    let task: URLSessionWebSocketTask
    let incoming: AsyncThrowingStream<String, Error>

    init(task: URLSessionWebSocketTask) {
        self.task = task
        incoming = AsyncThrowingStream { continuation in
            let reader = Task {
                task.resume()
                while true {
                    do {
                        switch try await task.receive() {
                        case .string(let text): continuation.yield(text)
                        case .data(let data): continuation.yield(String(decoding: data, as: UTF8.self))
                        @unknown default: break
                        }
                    } catch {
                        continuation.finish(throwing: Self.end(of: task, error))
                        return
                    }
                }
            }
            continuation.onTermination = { _ in reader.cancel() }
        }
    }

    /// What ended the task: a refused upgrade, a close frame, or a failure.
    static func end(of task: URLSessionWebSocketTask, _ error: Error) -> SyncLinkEnd {
        if let http = task.response as? HTTPURLResponse, http.statusCode != 101 { return .refused(status: http.statusCode) }
        if task.closeCode != .invalid {
            return .closed(code: task.closeCode.rawValue, reason: task.closeReason.map { String(decoding: $0, as: UTF8.self) } ?? "")
        }
        return .failed("\(error)")
    }

    func send(_ text: String) {
        task.send(.string(text)) { _ in }
    }

    func close(reason: String) {
        task.cancel(with: .normalClosure, reason: Data(reason.utf8))
    }
}
