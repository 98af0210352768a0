import FoldCore

/// The keys tokens are checked with, each with the one algorithm it
/// verifies and, optionally, its `kid`. A token's `kid` picks the key that
/// has it (two keys with one kid are ambiguous: refused); a token whose kid
/// no key has, or that has none, is tried against the keys without a kid.
/// The algorithm is always the key's (`JWSVerifier`).
public struct JWTKeyRing: Sendable {
    public struct Entry: Sendable {
        public let alg: JWSAlgorithm
        public let kid: String?
        public let key: VerificationKey

        /// Refuses a key unfit for its algorithm (`VerificationKey.problem`).
        public init(alg: JWSAlgorithm, kid: String?, key: VerificationKey) throws(JWTRefusal) {
            if let why = key.problem(for: alg) { throw JWTRefusal(.keyConfiguration, "unusable key\(kid.map { " '\($0)'" } ?? ""): \(why)") }
            self.alg = alg
            self.kid = kid
            self.key = key
        }
    }

    public let entries: [Entry]

    public init(_ entries: [Entry]) { self.entries = entries }

    /// A JWK Set (RFC 7517 §5): every key must name its `alg` (a JWS
    /// algorithm foldsync verifies) and `kid`, be meant for signatures, and
    /// pass the key checks; secrets and public keys are not mixed in one
    /// set (a published set holds no secret). Any bad key refuses the set.
    public init(jwks json: JSON) throws(JWTRefusal) {
        guard let keys = json["keys"]?.arrayValue else { throw JWTRefusal(.keyConfiguration, "a JWK Set is an object with a 'keys' list") }
        var entries: [Entry] = []
        var secrets = 0
        for (i, k) in keys.enumerated() {
            let jwk: JWK
            do { jwk = try JWK(json: k) } catch { throw JWTRefusal(.keyConfiguration, "key \(i): \(error.message)") }
            guard let name = jwk.alg, let alg = JWSAlgorithm(rawValue: name) else {
                throw JWTRefusal(.keyConfiguration, "key \(i) names no JWS algorithm foldsync verifies (alg '\(jwk.alg ?? "")')")
            }
            guard let kid = jwk.kid else { throw JWTRefusal(.keyConfiguration, "key \(i) has no 'kid'") }
            guard jwk.verifies else { throw JWTRefusal(.keyConfiguration, "key '\(kid)' is not meant for signatures (use/key_ops)") }
            guard let key = VerificationKey(jwk: jwk) else { throw JWTRefusal(.keyConfiguration, "key '\(kid)' cannot be read") }
            if case .oct = jwk.material { secrets += 1 }
            entries.append(try Entry(alg: alg, kid: kid, key: key))
        }
        if secrets > 0 && secrets < entries.count { throw JWTRefusal(.keyConfiguration, "a JWK Set mixes secrets and public keys") }
        self.entries = entries
    }

    /// Checks `jws` with the key its `kid` picks.
    public func verify(_ jws: CompactJWS) throws(JWTRefusal) {
        var candidates: [Entry] = []
        if let kid = jws.kid { candidates = entries.filter { $0.kid == kid } }
        if candidates.count > 1 { throw JWTRefusal(.unknownKey, "several keys have the token's kid") }
        if candidates.isEmpty { candidates = entries.filter { $0.kid == nil } }
        guard !candidates.isEmpty else { throw JWTRefusal(.unknownKey, "no key for the token's kid") }
        var refusal = JWTRefusal(.unknownKey, "no key for the token")
        for e in candidates {
            do throws(JWTRefusal) {
                try JWSVerifier.verify(jws, alg: e.alg, key: e.key)
                return
            } catch {
                refusal = error
            }
        }
        throw refusal
    }
}
