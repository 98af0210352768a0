import FoldCore
import FoldCrypto
import Testing

/// SHA-256 against the NIST examples (FIPS 180-2, appendix B, and the
/// one-million-'a' message), and the comparison the token check relies on.
@Suite struct OpenSSLDigestTests {
    let digest = OpenSSLDigest()

    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
    ])
    func nistVectors(message: String, expected: String) {
        #expect(digest.hex(Array(message.utf8)) == expected)
        #expect(digest.sha256(Array(message.utf8)).count == 32)
    }

    @Test func oneMillionAs() {
        let message = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        #expect(digest.hex(message) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    @Test func constantTimeEqualCompares() {
        let a = digest.sha256(Array("secret".utf8))
        var b = a
        #expect(digest.constantTimeEqual(a, b))
        b[31] ^= 1
        #expect(!digest.constantTimeEqual(a, b))
        #expect(!digest.constantTimeEqual(a, Array(a.dropLast())))
        #expect(digest.constantTimeEqual([], []))
    }

    @Test func aPolicyFindsTheTokenWhoseHashMatches() throws {
        let line = "ops read,fold \(digest.hex(Array("s3cret".utf8)))"
        let token = try AccessToken.parse(line).get()
        let policy = AccessPolicy(tokens: [token])
        #expect(policy.authenticate("s3cret", digest: digest)?.name == "ops")
        #expect(policy.authenticate("s3cret ", digest: digest) == nil)
    }
}
