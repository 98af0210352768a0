/// Why a token was not accepted: a check's name (the `/metrics` label) and
/// words for the client that say which check failed, never the token.
public struct JWTRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Check: String, Sendable, CaseIterable {
        case tooLarge = "too_large"
        case malformed
        case base64
        case header
        case algNone = "alg_none"
        case algMismatch = "alg_mismatch"
        case critical
        case unknownKey = "unknown_key"
        /// A configured key is unfit (not a token's fault; for the configuration's error).
        case keyConfiguration = "key_configuration"
        case signature
        case claims
        case expired
        case notYetValid = "not_yet_valid"
        case issuer
        case audience
    }

    public let check: Check
    public let message: String

    public init(_ check: Check, _ message: String) {
        self.check = check
        self.message = message
    }

    public var description: String { message }
}
