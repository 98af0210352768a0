import CURingShim
import Glibc

/// The sends of one flush, handed to the kernel together: one
/// `io_uring_enter` for a whole fan-out instead of one `send` system call
/// per connection. At 10,000 subscribers the system call's entry and exit
/// are most of what the daemon can still save per delivery; the TCP work
/// is the same either way.
///
/// Each send is non-blocking (`MSG_DONTWAIT`), so the kernel completes it
/// during the submission: with the data taken, part of it, or `-EAGAIN`.
/// `submit` therefore never waits on a peer, and the caller hands whatever a
/// socket did not take to lws, exactly as after a short `send`.
///
/// Queued sends point at bytes that must not change before `submit`:
/// a shared frame (kept alive here) or this ring's own arena, where coalesced
/// writes are built because the writer's scratch buffer is reused for every
/// connection.
///
/// Threading (lws' contract): service thread only, like the writer that owns it.
/// `Owner` is what each send is for (the writer's `Connection`).
final class SendRing<Owner: AnyObject> {
    /// A send waiting for `submit`.
    struct Pending {
        let owner: Owner
        let bytes: UnsafeMutablePointer<UInt8>
        let count: Int
        /// The shared frame the bytes live in, when they are not in the arena.
        let frame: OutFrame?
    }

    private let ring: OpaquePointer
    /// Submission queue entries; a flush with more sends submits in chunks.
    let entries: Int
    private var pending: [Pending] = []
    private var results: [Int32] = []
    private let arena: UnsafeMutableRawPointer
    let arenaSize: Int
    private var arenaUsed = 0
    /// `io_uring_enter` calls made, for `/metrics`.
    private(set) var submissions = 0

    /// Why the kernel offers no io_uring here (then the writer sends one by one).
    struct Unavailable: Error { let reason: String }

    static func open(entries: Int, arenaBytes: Int) -> Result<SendRing<Owner>, Unavailable> {
        guard let r = fs_uring_open(UInt32(entries)) else {
            return .failure(Unavailable(reason: String(cString: strerror(errno))))
        }
        return .success(SendRing(ring: r, entries: entries, arenaBytes: arenaBytes))
    }

    private init(ring: OpaquePointer, entries: Int, arenaBytes: Int) {
        self.ring = ring
        self.entries = entries
        arenaSize = arenaBytes
        arena = .allocate(byteCount: arenaBytes, alignment: 16)
        pending.reserveCapacity(entries)
    }

    deinit {
        fs_uring_close(ring)
        arena.deallocate()
    }

    var isEmpty: Bool { pending.isEmpty }

    /// Arena bytes left for coalesced writes, from `arenaNext` on.
    var arenaFree: Int { arenaSize - arenaUsed }
    var arenaNext: UnsafeMutablePointer<UInt8> { (arena + arenaUsed).assumingMemoryBound(to: UInt8.self) }

    /// Queues `count` bytes for socket `fd`. The caller has made room
    /// (`isFull` is false) and, for bytes in the arena, built them in the
    /// `arenaBytes` that start at `arenaNext`.
    func add(_ owner: Owner, fd: Int32, _ bytes: UnsafeMutablePointer<UInt8>, _ count: Int, frame: OutFrame?, arenaBytes: Int = 0) {
        arenaUsed += (arenaBytes + 15) & ~15
        pending.append(Pending(owner: owner, bytes: bytes, count: count, frame: frame))
        _ = fs_uring_send(ring, fd, bytes, count, UInt64(pending.count - 1))
    }

    var isFull: Bool { pending.count >= entries }

    /// Set when the kernel refused a submission: the writer stops using
    /// this ring, so entries it did not take are never sent behind lws' back.
    private(set) var broken = false

    /// Sends everything queued; `done` hears each send with what the kernel
    /// took (`>= 0` bytes, or `-errno`), in the order they were queued.
    /// A send the kernel never took reports `-EAGAIN`: its bytes go to lws.
    func submit(_ done: (Pending, Int) -> Void) {
        guard !pending.isEmpty else { return }
        let want = pending.count
        results.removeAll(keepingCapacity: true)
        results.append(contentsOf: repeatElement(Int32(-EAGAIN), count: want))
        var taken = 0
        // The kernel takes every entry at once unless it runs short of
        // memory; a short count is retried, a refusal retires the ring.
        for _ in 0..<3 where taken < want {
            let r = fs_uring_submit(ring, UInt32(want))
            submissions &+= 1
            if r < 0 { break }
            taken += Int(r)
        }
        if taken < want { broken = true }
        var tag: UInt64 = 0
        var res: Int32 = 0
        while fs_uring_reap(ring, &tag, &res) != 0 {
            if Int(tag) < want { results[Int(tag)] = res }
        }
        for i in 0..<want { done(pending[i], Int(results[i])) }
        pending.removeAll(keepingCapacity: true)
        arenaUsed = 0
    }
}
