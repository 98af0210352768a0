/// What an lws callback tells libwebsockets, by name instead of a bare
/// `Int32`. lws reads the number per callback reason, so the names say
/// what each one means where we use it:
///
/// - `proceed` (0): carry on; for `HTTP_CONFIRM_UPGRADE` and
///   `FILTER_PROTOCOL_CONNECTION`, accept the upgrade.
/// - `refuse` (1): for `FILTER_PROTOCOL_CONNECTION`, refuse the connection;
///   for `HTTP_CONFIRM_UPGRADE`, "the answer was written": lws (4.1.6 and 4.3.5) then
///   calls `lws_http_transaction_completed` (server.c, lws_handshake_server).
/// - `hangUp` (-1): close the connection (after flushing what lws holds
///   for it, `LRS_FLUSHING_BEFORE_CLOSE` in close.c).
struct CallbackResult: RawRepresentable, Equatable {
    let rawValue: Int32

    init(rawValue: Int32) { self.rawValue = rawValue }

    static let proceed = CallbackResult(rawValue: 0)
    static let refuse = CallbackResult(rawValue: 1)
    static let hangUp = CallbackResult(rawValue: -1)

    /// Hang up when an lws call that returns nonzero on failure failed
    /// (`lws_http_transaction_completed`, the header writers), else carry on.
    static func hangUp(ifFailed rc: Int32) -> CallbackResult { rc != 0 ? .hangUp : .proceed }
}
