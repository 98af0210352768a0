import FoldCore

/// A token as a value, or a function called before every connection and
/// again when the daemon says `authExpiring` (a JWT from a sign-in service).
public enum TokenSource: Sendable {
    case none
    case value(String)
    case provider(@Sendable () async throws -> String)
}
