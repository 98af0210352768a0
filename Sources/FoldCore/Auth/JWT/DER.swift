/// Just enough DER (X.690) to hand OpenSSL a public key it can read: a
/// SubjectPublicKeyInfo built from a JWK's numbers, and an ECDSA signature
/// in the form OpenSSL verifies, from JOSE's fixed-size r‖s.
public enum DER {
    public static func sequence(_ parts: [UInt8]...) -> [UInt8] { element(0x30, parts.flatMap { $0 }) }

    /// A non-negative INTEGER from its big-endian magnitude.
    public static func integer(_ magnitude: [UInt8]) -> [UInt8] {
        var m = Array(magnitude.drop { $0 == 0 })
        if m.isEmpty || m[0] & 0x80 != 0 { m.insert(0, at: 0) }
        return element(0x02, m)
    }

    public static func bitString(_ bytes: [UInt8]) -> [UInt8] { element(0x03, [0] + bytes) }

    static func element(_ tag: UInt8, _ content: [UInt8]) -> [UInt8] {
        [tag] + length(content.count) + content
    }

    static func length(_ n: Int) -> [UInt8] {
        if n < 0x80 { return [UInt8(n)] }
        var bytes: [UInt8] = []
        var v = n
        while v > 0 {
            bytes.insert(UInt8(v & 0xFF), at: 0)
            v >>= 8
        }
        return [0x80 | UInt8(bytes.count)] + bytes
    }

    // Algorithm identifiers, encoded (OIDs with their parameters).
    static let rsaEncryption: [UInt8] = [0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x01, 0x05, 0x00]
    static let ecPublicKey: [UInt8] = [0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01]
    static let p256: [UInt8] = [0x06, 0x08, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07]
    static let p384: [UInt8] = [0x06, 0x05, 0x2B, 0x81, 0x04, 0x00, 0x22]
    static let p521: [UInt8] = [0x06, 0x05, 0x2B, 0x81, 0x04, 0x00, 0x23]
    static let ed25519: [UInt8] = [0x06, 0x03, 0x2B, 0x65, 0x70]

    public static func rsaPublicKey(modulus n: [UInt8], exponent e: [UInt8]) -> [UInt8] {
        sequence(sequence(rsaEncryption), bitString(sequence(integer(n), integer(e))))
    }

    /// An EC point, uncompressed; nil for a curve not named here.
    public static func ecPublicKey(curve: String, x: [UInt8], y: [UInt8]) -> [UInt8]? {
        let oid: [UInt8]
        switch curve {
        case "P-256": oid = p256
        case "P-384": oid = p384
        case "P-521": oid = p521
        default: return nil
        }
        return sequence(sequence(ecPublicKey, oid), bitString([0x04] + x + y))
    }

    public static func ed25519PublicKey(_ x: [UInt8]) -> [UInt8] {
        sequence(sequence(ed25519), bitString(x))
    }

    /// JOSE's ECDSA signature (RFC 7518 §3.4: r and s, each exactly `half`
    /// bytes) as DER's ECDSA-Sig-Value; nil when the length is not 2 × half.
    public static func ecdsaSignature(p1363 sig: [UInt8], half: Int) -> [UInt8]? {
        guard sig.count == 2 * half else { return nil }
        return sequence(integer(Array(sig[..<half])), integer(Array(sig[half...])))
    }
}
