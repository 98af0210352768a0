/// The JWS algorithms foldsync verifies (RFC 7518 §3, RFC 8037 for EdDSA).
/// `none` is not one of them: a token that names it is refused.
public enum JWSAlgorithm: String, Sendable, CaseIterable {
    case HS256, HS384, HS512
    case RS256, RS384, RS512
    case PS256, PS384, PS512
    case ES256, ES384, ES512
    case EdDSA

    public enum Hash: Sendable { case sha256, sha384, sha512 }

    public enum Family: Sendable, Equatable {
        case hmac
        /// RSASSA-PKCS1-v1_5.
        case rsa
        /// RSASSA-PSS, MGF1 with the same hash, a salt as long as the hash.
        case pss
        /// ECDSA on `curve`; a signature is r‖s, `half` bytes each.
        case ecdsa(curve: String, half: Int)
        case eddsa
    }

    public var family: Family {
        switch self {
        case .HS256, .HS384, .HS512: .hmac
        case .RS256, .RS384, .RS512: .rsa
        case .PS256, .PS384, .PS512: .pss
        case .ES256: .ecdsa(curve: "P-256", half: 32)
        case .ES384: .ecdsa(curve: "P-384", half: 48)
        case .ES512: .ecdsa(curve: "P-521", half: 66)
        case .EdDSA: .eddsa
        }
    }

    /// The digest; nil for EdDSA, which hashes inside the signature scheme.
    public var hash: Hash? {
        switch self {
        case .HS256, .RS256, .PS256, .ES256: .sha256
        case .HS384, .RS384, .PS384, .ES384: .sha384
        case .HS512, .RS512, .PS512, .ES512: .sha512
        case .EdDSA: nil
        }
    }
}
