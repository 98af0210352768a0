/// The `store` setting as the log, `--help` and reload reports may show it:
/// a password in the URI (`user:secret@` or `?password=`) never appears.
public enum StoreURI {
    public static func isPostgres(_ uri: String) -> Bool {
        uri.hasPrefix("postgresql://") || uri.hasPrefix("postgres://")
    }

    /// The URI with every password replaced by `***`.
    public static func redacted(_ uri: String) -> String {
        guard let colon = uri.firstIndex(of: ":"), uri[colon...].hasPrefix("://") else { return uri }
        let schemeEnd = uri.index(colon, offsetBy: 3)
        let rest = uri[schemeEnd...]
        let query = rest.firstIndex(of: "?")
        var authority = String(rest[..<(query ?? rest.endIndex)])
        // The last `@` before the query ends the user information (a password may hold `@` or `/`).
        if let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") {
            authority = authority[...colon] + "***" + authority[at...]
        }
        var out = String(uri[..<schemeEnd]) + authority
        if let query {
            let params = rest[rest.index(after: query)...].split(separator: "&", omittingEmptySubsequences: false).map { p in
                p.lowercased().hasPrefix("password=") ? "password=***" : String(p)
            }
            out += "?" + params.joined(separator: "&")
        }
        return out
    }
}
