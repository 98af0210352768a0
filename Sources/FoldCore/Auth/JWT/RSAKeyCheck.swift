/// Whether an RSA public key is fit to verify tokens: at least 2,048 bits
/// (NIST SP 800-131A), an odd public exponent above 1, and not one of the
/// keys Infineon's library generated (ROCA, CVE-2017-15361), whose moduli
/// can be factored. Pure: reads the numbers only.
public enum RSAKeyCheck {
    public static let minimumBits = 2048

    /// Nil when fit, else why not.
    public static func problem(modulus n: [UInt8], exponent e: [UInt8]) -> String? {
        let n = Array(n.drop { $0 == 0 }), e = Array(e.drop { $0 == 0 })
        let bits = n.isEmpty ? 0 : (n.count - 1) * 8 + (8 - n[0].leadingZeroBitCount)
        if bits < minimumBits { return "an RSA key of \(bits) bits (at least \(minimumBits) are needed)" }
        guard let last = e.last, last & 1 == 1, e.count > 1 || last > 1 else { return "an RSA public exponent that is not an odd number above 1" }
        if rocaFingerprint(n) { return "an RSA key with the ROCA weakness (CVE-2017-15361)" }
        return nil
    }

    /// ROCA moduli are 65537^a modulo a primorial, times k: for every small
    /// prime p of it, n mod p lies in the subgroup 65537 generates mod p. A
    /// random modulus does so for all of these primes with negligible chance.
    static func rocaFingerprint(_ n: [UInt8]) -> Bool {
        let primes: [UInt32] = [3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73, 79, 83, 89,
                                97, 101, 103, 107, 109, 113, 127, 131, 137, 139, 149, 151, 157, 163, 167]
        for p in primes {
            let r = n.reduce(UInt32(0)) { ($0 << 8 | UInt32($1)) % p }
            var x: UInt32 = 1, inGroup = false
            repeat {
                if x == r { inGroup = true; break }
                x = x * (65537 % p) % p
            } while x != 1
            if !inGroup { return false }
        }
        return true
    }
}
