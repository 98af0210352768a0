import FoldCore

/// Checks a compact JWS against one configured key, the way the known JWT
/// attacks need: the algorithm is the key's, never the token's (`alg` must
/// name exactly it, so an HS256 token cannot be checked with an RSA key's
/// PEM as its secret); `none` is refused whatever the key; a `crit` header
/// (extensions this verifier does not implement) is refused; a key meant
/// for encryption verifies nothing; signatures are compared by OpenSSL or,
/// for HMAC, in constant time.
public enum JWSVerifier {
    public static func verify(_ jws: CompactJWS, alg: JWSAlgorithm, key: VerificationKey) throws(JWTRefusal) {
        guard jws.alg != "none" else { throw JWTRefusal(.algNone, "tokens with alg 'none' are never accepted") }
        guard jws.alg == alg.rawValue else {
            throw JWTRefusal(.algMismatch, "the token's alg '\(jws.alg.prefix(20))' is not its key's (\(alg.rawValue))")
        }
        guard jws.header["crit"] == nil else { throw JWTRefusal(.critical, "the token's header has 'crit' extensions foldsync does not implement") }
        guard key.verify(alg, message: jws.signingInput, signature: jws.signature) else {
            throw JWTRefusal(.signature, "the token's signature does not verify")
        }
    }
}
