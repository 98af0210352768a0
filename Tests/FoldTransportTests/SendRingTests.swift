@testable import FoldTransport
import Glibc
import Testing

/// The writer's io_uring batch on real sockets (a Unix stream pair): sends
/// land in the order queued, a full socket answers at once with what it
/// took instead of parking the request, and a batch larger than the ring
/// is the caller's to split.
@Suite struct SendRingTests {
    final class Peer {
        let fd: Int32
        let other: Int32
        init() throws {
            var fds: [Int32] = [0, 0]
            try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
            fd = fds[0]
            other = fds[1]
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }
        deinit { close(fd); close(other) }

        /// Everything readable on the other end right now.
        func drain() -> [UInt8] {
            var out: [UInt8] = []
            var buf = [UInt8](repeating: 0, count: 65536)
            while true {
                let n = recv(other, &buf, buf.count, Int32(MSG_DONTWAIT))
                if n <= 0 { return out }
                out += buf[0..<n]
            }
        }
    }

    func ring(entries: Int = 8, slots: Int = 0) throws -> SendRing<Peer> {
        switch SendRing<Peer>.open(entries: entries, arenaBytes: 1 << 16, slots: slots) {
        case .success(let r): return r
        case .failure(let why):
            Issue.record("io_uring refused on this machine: \(why.reason)")
            throw why
        }
    }

    @Test func queuedSendsArriveWholeAndInOrder() throws {
        let r = try ring()
        let a = try Peer(), b = try Peer()
        let frame = OutFrame(Array("hello".utf8))
        let bytes = frame.payload
        // Two sends to a, one to b, the arena's bytes for the second.
        r.add(a, fd: a.fd, bound: false, bytes, frame.count, frame: frame)
        let built = r.arenaNext
        for (i, c) in " world".utf8.enumerated() { built[i] = c }
        r.add(a, fd: a.fd, bound: false, built, 6, frame: nil, arenaBytes: 6)
        r.add(b, fd: b.fd, bound: false, bytes, frame.count, frame: frame)
        #expect(r.arenaFree == (1 << 16) - 16)
        var seen: [(Peer, Int)] = []
        r.submit { p, n in seen.append((p.owner.takeUnretainedValue(), n)) }
        #expect(seen.map(\.1) == [5, 6, 5])
        #expect(seen[0].0 === a && seen[1].0 === a && seen[2].0 === b)
        #expect(String(decoding: a.drain(), as: UTF8.self) == "hello world")
        #expect(String(decoding: b.drain(), as: UTF8.self) == "hello")
        #expect(r.isEmpty && r.arenaFree == 1 << 16 && r.submissions == 1 && !r.broken)
    }

    @Test func aFullSocketAnswersAtOnceWithWhatItTook() throws {
        let r = try ring()
        let p = try Peer()
        let big = OutFrame([UInt8](repeating: 0x61, count: 1 << 20))
        var took: [Int] = []
        // Nobody reads: the socket fills, then every send completes with -EAGAIN.
        for _ in 0..<8 {
            r.add(p, fd: p.fd, bound: false, big.payload, big.count, frame: big)
            r.submit { _, n in took.append(n) }
            if took.last.map({ $0 < 0 }) == true { break }
        }
        let short = try #require(took.firstIndex { $0 < big.count })
        #expect(took[short] >= 0 || took[short] == -Int(EAGAIN))
        #expect(took.last == -Int(EAGAIN), "\(took)")
        // What the socket took is exactly what the reader gets.
        var got = 0
        while true {
            let n = p.drain().count
            if n == 0 { break }
            got += n
        }
        #expect(got == took.filter { $0 > 0 }.reduce(0, +))
    }

    @Test func theRingSaysWhenItIsFull() throws {
        let r = try ring(entries: 4)
        let p = try Peer()
        let f = OutFrame([0x78])
        for i in 0..<4 {
            #expect(!r.isFull, "after \(i)")
            r.add(p, fd: p.fd, bound: false, f.payload, 1, frame: f)
        }
        #expect(r.isFull)
        var n = 0
        r.submit { _, took in n += took }
        #expect(n == 4 && !r.isFull)
        #expect(p.drain() == [UInt8](repeating: 0x78, count: 4))
    }

    /// A socket in a registered slot: sends by slot reach it; once unbound,
    /// the slot no longer holds it open (the peer sees the close).
    @Test func aBoundSocketIsSentToByItsSlotAndLetGoWhenUnbound() throws {
        let r = try ring(slots: 1024)
        #expect(r.slots == 1024, "the kernel registered no slots")
        var fds: [Int32] = [0, 0]
        try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
        defer { close(fds[1]) }
        let owner = try Peer()
        #expect(r.bind(fds[0]))
        #expect(!r.bind(5000), "past the table: no slot")
        let f = OutFrame(Array("slot".utf8))
        r.add(owner, fd: fds[0], bound: true, f.payload, f.count, frame: f)
        var took = 0
        r.submit { _, n in took = n }
        #expect(took == 4)
        var buf = [UInt8](repeating: 0, count: 16)
        #expect(recv(fds[1], &buf, 16, Int32(MSG_DONTWAIT)) == 4 && Array(buf[0..<4]) == Array("slot".utf8))
        // Closed while bound, the socket stays open through the slot; unbound, it goes.
        close(fds[0])
        #expect(recv(fds[1], &buf, 16, Int32(MSG_DONTWAIT)) == -1 && errno == EAGAIN)
        r.unbind(fds[0])
        var eof = false
        for _ in 0..<100 where !eof {
            eof = recv(fds[1], &buf, 16, Int32(MSG_DONTWAIT)) == 0
            if !eof { usleep(10_000) }
        }
        #expect(eof, "the unbound slot still held the socket")
    }
}
