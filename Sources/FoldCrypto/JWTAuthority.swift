import FoldCore
import Glibc

/// The daemon's `TokenVerifier`: the key ring, then the claims at the wall
/// clock with the configured issuer, audience and leeway. Immutable, so the
/// reload thread builds a new one and the service thread swaps it in.
public struct JWTAuthority: TokenVerifier {
    public let ring: JWTKeyRing
    public let issuer: String?
    public let audience: String?
    public let leeway: Double
    /// Seconds since the epoch; the system's real-time clock unless a test gives one.
    let clock: @Sendable () -> Double

    public init(ring: JWTKeyRing, issuer: String?, audience: String?, leeway: Double,
                clock: @escaping @Sendable () -> Double = JWTAuthority.wallClock) {
        self.ring = ring
        self.issuer = issuer
        self.audience = audience
        self.leeway = leeway
        self.clock = clock
    }

    public func verify(_ token: String) -> Result<VerifiedJWT, JWTRefusal> {
        do throws(JWTRefusal) {
            let jws = try CompactJWS(token)
            try ring.verify(jws)
            let claims = try JWTClaims(payload: jws.payload)
            let now = clock()
            try claims.check(now: now, leeway: leeway, issuer: issuer, audience: audience)
            return .success(VerifiedJWT(claims: claims, secondsLeft: claims.expires - now))
        } catch {
            return .failure(error)
        }
    }

    public var summary: String {
        let keys = ring.entries.map { "\($0.alg.rawValue)\($0.kid.map { ":" + $0 } ?? "")" }.joined(separator: ",")
        return "keys [\(keys)] issuer \(issuer ?? "-") audience \(audience ?? "-") leeway \(Int(leeway))"
    }

    @Sendable public static func wallClock() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
