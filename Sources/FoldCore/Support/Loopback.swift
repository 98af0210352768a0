/// Loopback addresses: they need no token to be listened on, and their
/// peers are not counted per address (a local proxy is one address).
public enum Loopback {
    public static func contains(_ host: String) -> Bool {
        host.hasPrefix("127.") || host == "::1"
    }
}
