/// A public key (or an HMAC secret) as a JSON Web Key (RFC 7517, 7518 §6,
/// 8037): what `jwks:` files hold and what the Wycheproof vectors give.
/// Only the public members are read; the numbers are strict base64url.
public struct JWK: Sendable, Equatable {
    public enum Material: Sendable, Equatable {
        case rsa(modulus: [UInt8], exponent: [UInt8])
        case ec(curve: String, x: [UInt8], y: [UInt8])
        case okp(curve: String, x: [UInt8])
        case oct([UInt8])
    }

    public var material: Material
    /// The algorithm the key is for, when it names one.
    public var alg: String?
    public var kid: String?
    /// `use` and `key_ops` (RFC 7517 §4.2, 4.3): a key meant for encryption
    /// must not verify signatures.
    public var use: String?
    public var keyOps: [String]?

    public init(material: Material, alg: String? = nil, kid: String? = nil, use: String? = nil, keyOps: [String]? = nil) {
        self.material = material
        self.alg = alg
        self.kid = kid
        self.use = use
        self.keyOps = keyOps
    }

    /// Whether the key may verify signatures at all.
    public var verifies: Bool {
        if let use, use != "sig" { return false }
        if let keyOps, !keyOps.contains("verify") { return false }
        return true
    }

    public init(json: JSON) throws(FoldError) {
        guard let o = json.objectValue else { throw FoldError(.invalid, "a JWK must be an object") }
        func text(_ name: String) throws(FoldError) -> String? {
            guard let v = o[name] else { return nil }
            guard let s = v.stringValue else { throw FoldError(.invalid, "JWK member '\(name)' must be a string") }
            return s
        }
        func bytes(_ name: String) throws(FoldError) -> [UInt8] {
            guard let s = try text(name) else { throw FoldError(.invalid, "JWK lacks '\(name)'") }
            guard let b = Base64URL.decode(s), !b.isEmpty else { throw FoldError(.invalid, "JWK member '\(name)' is not base64url") }
            return b
        }
        switch try text("kty") {
        case "RSA": material = .rsa(modulus: try bytes("n"), exponent: try bytes("e"))
        case "EC":
            guard let crv = try text("crv") else { throw FoldError(.invalid, "an EC JWK lacks 'crv'") }
            material = .ec(curve: crv, x: try bytes("x"), y: try bytes("y"))
        case "OKP":
            guard let crv = try text("crv") else { throw FoldError(.invalid, "an OKP JWK lacks 'crv'") }
            material = .okp(curve: crv, x: try bytes("x"))
        case "oct": material = .oct(try bytes("k"))
        case let kty: throw FoldError(.invalid, "JWK key type '\(kty ?? "(none)")' is not one foldsync reads")
        }
        alg = try text("alg")
        kid = try text("kid")
        use = try text("use")
        if let ops = o["key_ops"] {
            guard let list = ops.arrayValue?.compactMap(\.stringValue), list.count == ops.arrayValue?.count else {
                throw FoldError(.invalid, "JWK member 'key_ops' must be a list of strings")
            }
            keyOps = list
        }
    }

    /// The key as a DER SubjectPublicKeyInfo; nil for an HMAC secret or a curve not supported.
    public var subjectPublicKeyInfo: [UInt8]? {
        switch material {
        case .rsa(let n, let e): DER.rsaPublicKey(modulus: n, exponent: e)
        case .ec(let crv, let x, let y): DER.ecPublicKey(curve: crv, x: x, y: y)
        case .okp(let crv, let x): crv == "Ed25519" ? DER.ed25519PublicKey(x) : nil
        case .oct: nil
        }
    }
}
