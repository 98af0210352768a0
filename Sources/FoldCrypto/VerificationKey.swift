import CCrypto
import FoldCore

/// A key that verifies JWS signatures with OpenSSL's libcrypto: an HMAC
/// secret, or a public key (RSA, EC on P-256/384/521, Ed25519) read from PEM,
/// DER or a JWK. The algorithm always comes from the caller (the configured
/// key's), never from a token; `fits` says whether the key can serve it.
/// Immutable after init, so any thread.
public final class VerificationKey: @unchecked Sendable {
    private enum Material {
        case secret([UInt8])
        case publicKey(OpaquePointer)
    }

    private let material: Material

    public init(secret: [UInt8]) { material = .secret(secret) }

    /// A DER SubjectPublicKeyInfo; nil when OpenSSL cannot read it.
    public init?(subjectPublicKeyInfo der: [UInt8]) {
        let key: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var p = buffer.baseAddress
            return d2i_PUBKEY(nil, &p, buffer.count)
        }
        guard let key else { return nil }
        material = .publicKey(key)
    }

    /// A PEM public key (`-----BEGIN PUBLIC KEY-----`); nil when OpenSSL cannot read it.
    public init?(pem: [UInt8]) {
        let key: OpaquePointer? = pem.withUnsafeBytes { buffer in
            guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else { return nil }
            defer { BIO_free(bio) }
            return PEM_read_bio_PUBKEY(bio, nil, nil, nil)
        }
        ERR_clear_error()
        guard let key else { return nil }
        material = .publicKey(key)
    }

    /// A JWK's key; nil for a curve or key type OpenSSL is not given here.
    public convenience init?(jwk: JWK) {
        if case .oct(let k) = jwk.material {
            self.init(secret: k)
            return
        }
        guard let der = jwk.subjectPublicKeyInfo else { return nil }
        self.init(subjectPublicKeyInfo: der)
    }

    deinit {
        if case .publicKey(let key) = material { EVP_PKEY_free(key) }
    }

    /// Whether this key can verify `alg`: a secret for HMAC, an RSA key for
    /// RS/PS, an EC key on the algorithm's curve, an Ed25519 key for EdDSA.
    /// (Whether it is strong enough is `problem(for:)`'s.)
    public func fits(_ alg: JWSAlgorithm) -> Bool {
        switch (material, alg.family) {
        case (.secret, .hmac): return true
        case (.publicKey(let key), .rsa), (.publicKey(let key), .pss):
            return EVP_PKEY_get_base_id(key) == EVP_PKEY_RSA
        case (.publicKey(let key), .ecdsa(let curve, _)):
            let bits: Int32 = curve == "P-256" ? 256 : curve == "P-384" ? 384 : 521
            return EVP_PKEY_get_base_id(key) == EVP_PKEY_EC && EVP_PKEY_get_bits(key) == bits
        case (.publicKey(let key), .eddsa):
            return EVP_PKEY_get_base_id(key) == EVP_PKEY_ED25519
        default:
            return false
        }
    }

    /// Why this key must not verify tokens of `alg`, or nil: it must fit the
    /// algorithm; an HMAC secret must be at least as long as the hash
    /// (RFC 7518 §3.2) and 32 bytes; an RSA key must pass `RSAKeyCheck`.
    public func problem(for alg: JWSAlgorithm) -> String? {
        guard fits(alg) else { return "the key does not fit \(alg.rawValue)" }
        switch material {
        case .secret(let k):
            let needed = max(32, alg.hash.map { $0 == .sha256 ? 32 : $0 == .sha384 ? 48 : 64 } ?? 32)
            return k.count < needed ? "an \(alg.rawValue) secret of \(k.count) bytes (at least \(needed) are needed)" : nil
        case .publicKey(let key):
            guard alg.family == .rsa || alg.family == .pss else { return nil }
            guard let n = Self.number(key, "n"), let e = Self.number(key, "e") else { return "an RSA key whose numbers cannot be read" }
            return RSAKeyCheck.problem(modulus: n, exponent: e)
        }
    }

    /// One of a public key's numbers (`n`, `e`), big-endian.
    private static func number(_ key: OpaquePointer, _ name: String) -> [UInt8]? {
        var bn: OpaquePointer?
        guard EVP_PKEY_get_bn_param(key, name, &bn) == 1, let bn else { return nil }
        defer { BN_free(bn) }
        var out = [UInt8](repeating: 0, count: (Int(BN_num_bits(bn)) + 7) / 8)
        _ = out.withUnsafeMutableBufferPointer { BN_bn2bin(bn, $0.baseAddress) }
        return out
    }

    /// Whether `signature` is `alg`'s signature of `message` under this key.
    /// `macBytes` truncates an HMAC tag (test vectors only: a JWS tag is whole).
    public func verify(_ alg: JWSAlgorithm, message: [UInt8], signature: [UInt8], macBytes: Int? = nil) -> Bool {
        guard fits(alg) else { return false }
        defer { ERR_clear_error() }
        switch material {
        case .secret(let key):
            guard let md = Self.digest(alg.hash) else { return false }
            var tag = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
            var length: UInt32 = 0
            let ok = key.withUnsafeBufferPointer { k in
                message.withUnsafeBufferPointer { m in
                    tag.withUnsafeMutableBufferPointer { t in
                        HMAC(md, k.baseAddress, Int32(k.count), m.baseAddress, m.count, t.baseAddress, &length) != nil
                    }
                }
            }
            guard ok else { return false }
            let expected = Array(tag[..<Int(length)].prefix(macBytes ?? Int(length)))
            return OpenSSLDigest().constantTimeEqual(expected, signature)
        case .publicKey(let key):
            var sig = signature
            if case .ecdsa(_, let half) = alg.family {
                // JOSE's r‖s, never DER: a DER signature has the wrong length here.
                guard let der = DER.ecdsaSignature(p1363: signature, half: half) else { return false }
                sig = der
            }
            return digestVerify(key, alg, message, sig)
        }
    }

    private func digestVerify(_ key: OpaquePointer, _ alg: JWSAlgorithm, _ message: [UInt8], _ sig: [UInt8]) -> Bool {
        guard let ctx = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(ctx) }
        var pctx: OpaquePointer?
        let md = Self.digest(alg.hash)
        guard EVP_DigestVerifyInit(ctx, &pctx, md, nil, key) == 1 else { return false }
        if alg.family == .pss {
            // RFC 7518 §3.5: MGF1 with the same hash, a salt exactly as long as the hash.
            guard let pctx, EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING) == 1,
                  EVP_PKEY_CTX_set_rsa_mgf1_md(pctx, md) == 1,
                  EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, RSA_PSS_SALTLEN_DIGEST) == 1 else { return false }
        }
        return sig.withUnsafeBufferPointer { s in
            message.withUnsafeBufferPointer { m in
                EVP_DigestVerify(ctx, s.baseAddress, s.count, m.baseAddress, m.count) == 1
            }
        }
    }

    private static func digest(_ hash: JWSAlgorithm.Hash?) -> OpaquePointer? {
        switch hash {
        case .sha256: EVP_sha256()
        case .sha384: EVP_sha384()
        case .sha512: EVP_sha512()
        case nil: nil
        }
    }
}
