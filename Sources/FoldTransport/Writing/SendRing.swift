import CURingShim
import Glibc

/// The sends of one flush, handed to the kernel together: one
/// `io_uring_enter` for a whole fan-out instead of one `send` system call
/// per connection (`io-uring = true`). It saves the system calls' entry and
/// exit, but on loopback the kernel then defers the receiving side's work to
/// ksoftirqd on the same core, which costs more than it saves; so it is off
/// by default (docs/PERFORMANCE.md, "io_uring").
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
/// Sockets may sit in registered-file slots (`bind`, slot = descriptor):
/// a send on one skips the kernel's file lookup and its reference count.
///
/// Threading (lws' contract): service thread only, like the writer that owns it.
/// `Owner` is what each send is for (the writer's `Connection`); the caller
/// keeps it alive until `submit` (the writer's flush list does).
final class SendRing<Owner: AnyObject> {
    /// A send waiting for `submit`.
    struct Pending {
        let owner: Unmanaged<Owner>
        let bytes: UnsafeMutablePointer<UInt8>
        let count: Int
    }

    private let ring: OpaquePointer
    /// Submission queue entries; a flush with more sends submits in chunks.
    let entries: Int
    private var pending: [Pending] = []
    private var results: [Int32] = []
    /// The shared frames queued sends point into, each kept once: a
    /// fan-out's thousand sends share one frame (one retain, not a thousand).
    private var frames: [OutFrame] = []
    /// Registered-file slots, indexed by descriptor (0: none registered).
    private(set) var slots = 0
    private let arena: UnsafeMutableRawPointer
    let arenaSize: Int
    private var arenaUsed = 0
    /// `io_uring_enter` calls made, for `/metrics`.
    private(set) var submissions = 0

    /// Why the kernel offers no io_uring here (then the writer sends one by one).
    struct Unavailable: Error { let reason: String }

    /// `slots`: descriptors below it may be registered; 0 for none, or when
    /// the kernel cannot (then every send looks its socket up).
    static func open(entries: Int, arenaBytes: Int, slots: Int = 0) -> Result<SendRing<Owner>, Unavailable> {
        guard let r = fs_uring_open(UInt32(entries)) else {
            return .failure(Unavailable(reason: String(cString: strerror(errno))))
        }
        let ring = SendRing(ring: r, entries: entries, arenaBytes: arenaBytes)
        if slots > 0 && fs_uring_register_slots(r, UInt32(slots)) == 0 { ring.slots = slots }
        return .success(ring)
    }

    /// Registers socket `fd` in its slot; false when it has none (then its
    /// sends look it up). Pair with `unbind` before the descriptor closes:
    /// the slot holds the socket open.
    func bind(_ fd: Int32) -> Bool {
        fd >= 0 && Int(fd) < slots && fs_uring_set_slot(ring, UInt32(fd), fd) == 0
    }

    func unbind(_ fd: Int32) {
        if fd >= 0 && Int(fd) < slots { _ = fs_uring_set_slot(ring, UInt32(fd), -1) }
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

    /// Queues `count` bytes for socket `fd` (`bound`: registered with
    /// `bind`). The caller has made room (`isFull` is false); the bytes live
    /// in `frame` or, built there, in the `arenaBytes` from `arenaNext`.
    func add(_ owner: Owner, fd: Int32, bound: Bool, _ bytes: UnsafeMutablePointer<UInt8>, _ count: Int, frame: OutFrame?, arenaBytes: Int = 0) {
        arenaUsed += (arenaBytes + 15) & ~15
        if let frame, frames.last !== frame { frames.append(frame) }
        pending.append(Pending(owner: .passUnretained(owner), bytes: bytes, count: count))
        _ = fs_uring_send(ring, fd, bound ? 1 : 0, bytes, count, UInt64(pending.count - 1))
    }

    var isFull: Bool { pending.count >= entries }

    /// Set when the kernel refused a submission: the writer stops sending
    /// through this ring (it only empties its slots), so entries the kernel
    /// did not take are never sent behind lws' back.
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
        frames.removeAll(keepingCapacity: true)
        arenaUsed = 0
    }
}
