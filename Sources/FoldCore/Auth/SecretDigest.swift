/// How token secrets are hashed and compared: SHA-256 and a comparison in
/// constant time. Given from outside (FoldCrypto's `OpenSSLDigest`), so the
/// core holds no crypto of its own and imports no C.
public protocol SecretDigest: Sendable {
    /// SHA-256 of `bytes`: 32 bytes.
    func sha256(_ bytes: [UInt8]) -> [UInt8]
    /// Equal, in time that depends only on the lengths, so a guessed
    /// secret's hash reveals nothing through timing.
    func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool
}

extension SecretDigest {
    /// SHA-256 of `bytes` as 64 lowercase hex digits: the form a `token =`
    /// line carries (`foldsyncd hash-token` prints it).
    public func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(64)
        for b in sha256(bytes) {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 15)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
