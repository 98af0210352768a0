import FoldCore
import FoldSystem
@testable import FoldTransport
import Foundation
import Testing

/// Client contexts created, used and destroyed on many threads at once, as
/// an application with several clients (or this test runner) does. On
/// libwebsockets 4.3, whose log context counts the objects bound to it
/// without a lock in Debian's build, contexts sharing one log context lost
/// counts and failed its assertion (`cx->refcount`), aborting the process.
@Suite struct ClientContextThreadsTests {
    /// Reports how each attempt ended; service thread only, one per client.
    final class Outcome: WebClientDelegate {
        var closed = 0
        var opened = 0
        func opened(_ socket: ClientSocket) { opened += 1 }
        func received(_ socket: ClientSocket, _ message: [UInt8]) {}
        func closed(_ socket: ClientSocket, _ reason: ClientCloseReason) { closed += 1 }
        func fetched(_ id: UInt64, _ result: Result<HTTPReply, TransportError>) { closed += 1 }
        func woken() {}
    }

    /// A port nothing listens on: a socket bound and closed again.
    static func refusingPort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { p -> Bool in
                bind(fd, p, len) == 0 && getsockname(fd, p, &len) == 0
            }
        }
        try #require(bound)
        return Int(UInt16(bigEndian: addr.sin_port))
    }

    /// Each context counts only its own objects: a second context and its
    /// sockets leave the first's count as it was. On lws 4.1 there is no
    /// such count; the test then checks only that both contexts work.
    @Test func aContextsLogCountIsItsOwn() throws {
        let port = try Self.refusingPort()
        let first = WebClient(logger: .silent)
        try first.start()
        let before = first.lws.logBindings
        let second = WebClient(logger: .silent)
        let outcome = Outcome()
        second.delegate = outcome
        try second.start()
        let endpoint = Endpoint(secure: false, host: "127.0.0.1", port: port, path: "/")
        for _ in 0..<4 { _ = second.connect(endpoint, subprotocols: ["foldsync.v1"]) }
        let during = first.lws.logBindings
        let secondsOwn = second.lws.logBindings
        var turns = 0
        while outcome.closed < 4, turns < 2_000, second.serviceOnce() { turns += 1 }
        #expect(outcome.closed == 4, "every refused connect is reported")
        second.stop()
        second.run()
        #expect(first.lws.logBindings == before)
        #expect(during == before, "another context's objects were counted in this one's log context")
        if let before, let secondsOwn {
            #expect(before > 0 && secondsOwn > before, "the second context's connects count in its own")
        } else {
            #expect(before == nil && secondsOwn == nil, "a count on one context and not the other")
        }
        first.stop()
        first.run()
    }

    @Test func contextsOnEightThreadsEachConnectAndEnd() throws {
        let port = try Self.refusingPort()
        let threads = 8, rounds = 30
        let results = Locked([Int](repeating: 0, count: threads))
        // Another thread opens pipes over and over and checks each is still
        // open before closing it: a context that closed a descriptor twice
        // would close one of these.
        let done = Locked(false), lost = Locked(0), checked = Locked(0)
        let watcherDone = DispatchSemaphore(value: 0)
        let watcher = Thread {
            var fds: [Int32] = [0, 0]
            while !done.withLock({ $0 }) {
                guard pipe(&fds) == 0 else { continue }
                for _ in 0..<20 { sched_yield() }
                let gone = fds.filter { fcntl($0, F_GETFD) == -1 }.count
                lost.withLock { $0 += gone }
                checked.withLock { $0 += 1 }
                close(fds[0])
                close(fds[1])
            }
            watcherDone.signal()
        }
        watcher.start()
        let group = DispatchGroup()
        for t in 0..<threads {
            group.enter()
            let thread = Thread {
                defer { group.leave() }
                for _ in 0..<rounds {
                    let client = WebClient(logger: .silent)
                    let outcome = Outcome()
                    client.delegate = outcome
                    guard (try? client.start()) != nil else { return }
                    let endpoint = Endpoint(secure: false, host: "127.0.0.1", port: port, path: "/")
                    _ = client.connect(endpoint, subprotocols: ["foldsync.v1"])
                    _ = client.fetch(endpoint)
                    var turns = 0
                    while outcome.closed < 2, turns < 2_000, client.serviceOnce() { turns += 1 }
                    client.stop()
                    client.run()
                    if outcome.closed == 2 && outcome.opened == 0 { results.withLock { $0[t] += 1 } }
                }
            }
            thread.start()
        }
        #expect(group.wait(timeout: .now() + 120) == .success, "the threads did not finish within 120 s")
        done.withLock { $0 = true }
        #expect(watcherDone.wait(timeout: .now() + 5) == .success, "the watcher thread did not stop")
        #expect(checked.withLock { $0 } > 0)
        #expect(lost.withLock { $0 } == 0, "\(lost.withLock { $0 }) of another thread's descriptors were closed under it")
        // Every attempt on every thread was refused and reported, once each.
        #expect(results.withLock { $0 } == [Int](repeating: rounds, count: threads))
    }
}
