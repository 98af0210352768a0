import CCrypto
import FoldCore

/// Token hashing from OpenSSL's libcrypto (already linked through
/// libwebsockets): SHA-256 by `EVP_Digest`, comparison by `CRYPTO_memcmp`,
/// whose time depends only on the length. What the daemon hands the hub as
/// its `SecretDigest`. Stateless, so any thread.
public struct OpenSSLDigest: SecretDigest {
    public init() {}

    public func sha256(_ bytes: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let rc = bytes.withUnsafeBytes { input in
            out.withUnsafeMutableBufferPointer { digest in
                EVP_Digest(input.baseAddress, input.count, digest.baseAddress, &length, EVP_sha256(), nil)
            }
        }
        check(rc, "EVP_Digest(SHA-256)")
        precondition(length == 32, "SHA-256 gave \(length) bytes")
        return out
    }

    public func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        // Lengths are public (every hash is 32 bytes); only the contents are compared in constant time.
        guard a.count == b.count else { return false }
        guard !a.isEmpty else { return true }
        return a.withUnsafeBytes { pa in
            b.withUnsafeBytes { pb in CRYPTO_memcmp(pa.baseAddress, pb.baseAddress, a.count) == 0 }
        }
    }

    /// libcrypto's one status convention here: 1 is success. A digest of
    /// bytes in memory can only fail when OpenSSL itself is broken (no
    /// memory, no default provider), which no caller could handle: trap.
    private func check(_ rc: Int32, _ what: StaticString) {
        precondition(rc == 1, "\(what) failed")
    }
}
