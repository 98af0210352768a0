import FoldSystem
import CLibWebSockets
import Glibc

/// The one owner of an lws context and of everything lws points at while it
/// lives: the C strings of the creation info, the protocol table, the retry
/// policy and its table. lws keeps those pointers for the whole life of the
/// context and its vhosts, so they are freed only after
/// `lws_context_destroy`, here, in `destroy()` or `deinit`.
///
/// Shared by `WebServer` and `WebClient`. Threading (lws' contract): the
/// service thread creates, services and destroys the context and is the
/// only one to call anything here; other threads reach it only through the
/// `Waker`, which this class attaches on creation and detaches before
/// destroying (so no wake-up ever meets a freed context).
final class LWSContext {
    /// Service thread only; nil before `create` and after `destroy`.
    private(set) var raw: OpaquePointer?
    let waker: Waker
    private var strings: [UnsafeMutablePointer<CChar>] = []
    private var protocolTables: [UnsafeMutablePointer<lws_protocols>] = []
    private var policies: [UnsafeMutablePointer<lws_retry_bo_t>] = []
    private var retryTables: [UnsafeMutablePointer<UInt32>] = []
    /// The context's own log context (lws 4.3 and later: `fs_log_cx_create`), freed after the context.
    private var logCx: UnsafeMutableRawPointer?

    init(waker: Waker) { self.waker = waker }

    /// Owners call `destroy()` in their own `deinit`, while the object the
    /// callbacks reach through the context's user pointer is still whole;
    /// this one is the last resort.
    deinit {
        destroy()
        for s in strings { free(s) }
        for t in protocolTables { t.deallocate() }
        for p in policies { p.deallocate() }
        for t in retryTables { t.deallocate() }
        fs_log_cx_free(logCx)
    }

    /// A C copy of `s` that lives as long as this object.
    func cString(_ s: String) -> UnsafePointer<CChar> {
        let p = strdup(s)!
        strings.append(p)
        return UnsafePointer(p)
    }

    /// A zero-terminated protocol table (lws reads it for the context's life).
    func protocols(_ list: [lws_protocols]) -> UnsafePointer<lws_protocols> {
        let table = UnsafeMutablePointer<lws_protocols>.allocate(capacity: list.count + 1)
        for (i, p) in list.enumerated() { (table + i).initialize(to: p) }
        (table + list.count).initialize(to: lws_protocols())
        protocolTables.append(table)
        return UnsafePointer(table)
    }

    /// A retry and idle policy: lws pings a connection silent for
    /// `pingSeconds` and drops one silent for `hangupSeconds` (kept above the
    /// ping, or no ping could save it). lws needs a non-NULL retry table even
    /// when it is used for these timers only. `pingSeconds` 0 turns lws'
    /// validity timers off (the server's own keep-alive replaces them).
    func retryPolicy(pingSeconds: Int, hangupSeconds: Int, retryMs: UInt32 = 1000) -> UnsafePointer<lws_retry_bo_t> {
        let steps = UnsafeMutablePointer<UInt32>.allocate(capacity: 1)
        steps.initialize(to: retryMs)
        retryTables.append(steps)
        var r = lws_retry_bo_t()
        r.retry_ms_table = UnsafePointer(steps)
        r.retry_ms_table_count = 1
        r.conceal_count = 0
        r.secs_since_valid_ping = UInt16(clamping: pingSeconds)
        r.secs_since_valid_hangup = pingSeconds == 0 ? 0 : UInt16(clamping: max(hangupSeconds, pingSeconds + 1))
        let policy = UnsafeMutablePointer<lws_retry_bo_t>.allocate(capacity: 1)
        policy.initialize(to: r)
        policies.append(policy)
        return UnsafePointer(policy)
    }

    /// Creates the context; nil when lws refuses (an event-loop plugin
    /// missing, say). Service thread: the one that will service it.
    /// `logLevel` and `emit` are its log's (`lws_set_log_level`'s), on a
    /// log context of its own where lws has them.
    func create(_ info: inout lws_context_creation_info, logLevel: Int32,
                emit: (@convention(c) (Int32, UnsafePointer<CChar>?) -> Void)?) -> OpaquePointer? {
        precondition(raw == nil, "one context per owner")
        if logCx == nil { logCx = fs_log_cx_create(logLevel, emit) }
        fs_log_cx_use(&info, logCx)
        guard let ctx = lws_create_context(&info) else { return nil }
        raw = ctx
        // Before anything can destroy it: lws 4.3 would unload the event library under its own loop.
        EventLibraryPin.pinLoaded()
        // `lws_cancel_service`: the one lws call other threads may make.
        let ref = ContextRef(raw: ctx)
        waker.attach { lws_cancel_service(ref.raw) }
        return ctx
    }

    /// Objects bound to this context's log context (lws 4.3 and later:
    /// its own, so other contexts' never count here); nil before 4.3 or
    /// without a context.
    var logBindings: Int? {
        guard let raw else { return nil }
        let n = fs_log_cx_bound(raw)
        return n < 0 ? nil : Int(n)
    }

    /// Detaches the waker, then destroys the context (once). Service thread,
    /// outside any wsi callback (from the loop's end or an lws timer).
    func destroy() {
        guard let ctx = raw else { return }
        waker.detach()
        lws_context_destroy(ctx)
        raw = nil
    }

    /// Runs `body` once after `us` microseconds, on lws' own timer list (no
    /// tick per connection). Service thread. The box is retained by the
    /// pending timer and released when it fires (`timerFired`).
    func schedule(afterMicroseconds us: Int64, _ body: @escaping () -> Void) {
        guard let ctx = raw else { return }
        let box = TimerBox(body)
        box.node.pointee.owner = Unmanaged.passRetained(box).toOpaque()
        withUnsafeMutablePointer(to: &box.node.pointee.sul) { sul in
            lws_sul_schedule(ctx, 0, sul, timerFired, lws_usec_t(us))
        }
    }
}

/// An lws context pointer that may cross threads: only the waker's call
/// holds one, and only uses it under the waker's mutex.
struct ContextRef: @unchecked Sendable {
    let raw: OpaquePointer
}
