/// Checks a JWT completely (form, signature with the configured keys,
/// claims at the current time) and says how long it has left. Given to the
/// hub from outside (FoldCrypto's `JWTAuthority`): the hub holds no crypto
/// and reads no clock, so it gets the time left, not the time.
public protocol TokenVerifier: Sendable {
    func verify(_ token: String) -> Result<VerifiedJWT, JWTRefusal>
    /// What is configured, without secrets: for reload reports and equality.
    var summary: String { get }
}

public struct VerifiedJWT: Sendable, Equatable {
    public let claims: JWTClaims
    /// `exp` minus now, in seconds (negative inside the leeway).
    public let secondsLeft: Double

    public init(claims: JWTClaims, secondsLeft: Double) {
        self.claims = claims
        self.secondsLeft = secondsLeft
    }
}
