import CLibWebSockets
import FoldSystem

/// Keeps lws' event-library plugins, and the libraries they load, mapped
/// until the process ends.
///
/// With an event library (libev, the daemon's default), the loop runs
/// inside `lws_service`, and the context is destroyed from an lws timer,
/// inside that loop, so it can run dry (`WebServer.stop`). libwebsockets
/// 4.3 (Debian 13) unloads its event-library plugin in
/// `lws_context_destroy` (dlclose of `libwebsockets-evlib_ev.so`, and with
/// it `libev.so.4`) while `ev_run` is still on the service thread's stack:
/// the return into unmapped code was a SIGSEGV on every SIGTERM. 4.1.6
/// (Debian 12) stopped cleanly without it. Pinning them (RTLD_NODELETE) right
/// after the context is made turns that dlclose into a no-op on every
/// version; nothing that was not loaded is loaded.
public enum EventLibraryPin {
    /// The plugins lws ships and the libraries behind them, by soname.
    static let sonames = [
        "libwebsockets-evlib_ev.so", "libwebsockets-evlib_uv.so", "libwebsockets-evlib_glib.so", "libwebsockets-evlib_event.so",
        "libev.so.4", "libuv.so.1", "libglib-2.0.so.0", "libevent-2.1.so.7",
    ]

    /// Pins each of `sonames` that is loaded; returns those pinned.
    @discardableResult
    static func pinLoaded() -> [String] {
        let now = sonames.filter { fs_pin_if_loaded($0) != 0 }
        pins.withLock { $0.formUnion(now) }
        return now
    }

    /// Every library pinned in this process so far, sorted (the daemon logs them at start).
    public static var pinned: [String] { pins.withLock { $0.sorted() } }
    private static let pins = Locked<Set<String>>([])
}
