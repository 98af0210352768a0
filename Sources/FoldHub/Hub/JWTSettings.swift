import FoldCore

/// JWT sign-in, when keys are configured: the verifier (keys, issuer,
/// audience, leeway: the daemon's `JWTAuthority`) and the two timings the
/// hub keeps on a live connection.
public struct JWTSettings: Sendable, Equatable {
    public var verifier: any TokenVerifier
    /// Seconds of clock skew allowed after `exp` before the connection closes.
    public var leeway: Double
    /// Seconds before `exp` when `authExpiring` is sent.
    public var refreshBefore: Double

    public init(verifier: any TokenVerifier, leeway: Double = 30, refreshBefore: Double = 60) {
        self.verifier = verifier
        self.leeway = leeway
        self.refreshBefore = refreshBefore
    }

    public static func == (a: JWTSettings, b: JWTSettings) -> Bool {
        a.verifier.summary == b.verifier.summary && a.leeway == b.leeway && a.refreshBefore == b.refreshBefore
    }
}
