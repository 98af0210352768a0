@testable import FoldCore
import FoldCrypto
import FoldTestSupport
import Foundation
import Testing

/// The token checks the known JWT attacks need, each refused with the check
/// that failed. Tokens are signed here by Python's hmac and the `openssl`
/// command: an implementation other than the one under test.
@Suite struct JWTVerificationTests {
    static let secret = [UInt8](repeating: 7, count: 32)

    /// HMAC-SHA-`bits` of `input` under `key`, by Python.
    static func pythonHMAC(_ key: [UInt8], _ input: String, bits: Int = 256) throws -> [UInt8] {
        let script = "import hmac,hashlib,sys; sys.stdout.write(hmac.new(bytes.fromhex(sys.argv[1]), sys.stdin.buffer.read(), hashlib.sha\(bits)).hexdigest())"
        let r = try runTool("python3", ["-c", script, Hex.encode(key)], stdin: input)
        #expect(r.status == 0, "\(r.stderr)")
        return try #require(Hex.decode(r.stdout), "not hex: \(r.stdout)")
    }

    static func part(_ json: String) -> String { Base64URL.encode(Array(json.utf8)) }

    static func token(header: String, payload: String = #"{"sub":"alice"}"#, key: [UInt8] = secret, bits: Int = 256) throws -> String {
        let input = part(header) + "." + part(payload)
        return input + "." + Base64URL.encode(try pythonHMAC(key, input, bits: bits))
    }

    static func refusal(_ token: String, _ ring: JWTKeyRing) -> JWTRefusal.Check? {
        do throws(JWTRefusal) {
            try ring.verify(try CompactJWS(token))
            return nil
        } catch {
            #expect(!error.message.contains(token), "a refusal never repeats the token")
            return error.check
        }
    }

    static func hs256Ring(kid: String? = nil) throws -> JWTKeyRing {
        JWTKeyRing([try JWTKeyRing.Entry(alg: .HS256, kid: kid, key: VerificationKey(secret: secret))])
    }

    @Test func aGoodTokenPassesAndEachTamperingIsRefusedByItsCheck() throws {
        let ring = try Self.hs256Ring()
        let good = try Self.token(header: #"{"alg":"HS256","typ":"JWT"}"#)
        #expect(Self.refusal(good, ring) == nil)
        let parts = good.split(separator: ".").map(String.init)
        // A claim changed after signing.
        #expect(Self.refusal(parts[0] + "." + Self.part(#"{"sub":"mallory"}"#) + "." + parts[2], ring) == .signature)
        // The signature truncated, or padded.
        let shorter = Base64URL.encode(Array(try #require(Base64URL.decode(parts[2])).dropLast()))
        #expect(Self.refusal(parts[0] + "." + parts[1] + "." + shorter, ring) == .signature)
        #expect(Self.refusal(parts[0] + "." + parts[1] + "." + parts[2].dropLast(2), ring) == .base64, "no length base64url can have")
        #expect(Self.refusal(good + "=", ring) == .base64)
        // `none`, with or without a signature.
        #expect(Self.refusal(Self.part(#"{"alg":"none"}"#) + "." + parts[1] + ".", ring) == .algNone)
        #expect(Self.refusal(Self.part(#"{"alg":"none"}"#) + "." + parts[1] + "." + parts[2], ring) == .algNone)
        // The header's alg swapped for another of the same family, re-signed with the same secret.
        #expect(Self.refusal(try Self.token(header: #"{"alg":"HS512"}"#, bits: 512), ring) == .algMismatch)
        // Duplicate header members, a `crit` extension, a header that is not an object.
        #expect(Self.refusal(try Self.token(header: #"{"alg":"HS256","alg":"HS256"}"#), ring) == .header)
        #expect(Self.refusal(try Self.token(header: #"{"alg":"HS256","crit":["exp"],"exp":1}"#), ring) == .critical)
        #expect(Self.refusal(try Self.token(header: #"["HS256"]"#), ring) == .header)
        // Two parts, four parts, more than 8 KiB.
        #expect(Self.refusal(parts[0] + "." + parts[1], ring) == .malformed)
        #expect(Self.refusal(good + ".x", ring) == .malformed)
        let big = try Self.token(header: #"{"alg":"HS256"}"#, payload: #"{"sub":"\#(String(repeating: "a", count: 9 * 1024))"}"#)
        #expect(Self.refusal(big, ring) == .tooLarge)
    }

    /// The HS256 / RS256 confusion: an attacker signs HS256 with the
    /// server's RSA public key (its PEM text) as the HMAC secret.
    @Test func anHMACTokenSignedWithTheRSAKeysPEMIsRefused() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("jwt-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let priv = dir.appendingPathComponent("k.pem").path, pub = dir.appendingPathComponent("pub.pem").path
        #expect(try runTool("openssl", ["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", priv]).status == 0)
        #expect(try runTool("openssl", ["pkey", "-in", priv, "-pubout", "-out", pub]).status == 0)
        let pem = Array(try Data(contentsOf: URL(fileURLWithPath: pub)))
        let key = try #require(VerificationKey(pem: pem))
        let ring = JWTKeyRing([try JWTKeyRing.Entry(alg: .RS256, kid: nil, key: key)])
        let forged = try Self.token(header: #"{"alg":"HS256"}"#, key: pem)
        #expect(Self.refusal(forged, ring) == .algMismatch)
        // Signed properly, by the `openssl` command, it passes.
        let input = Self.part(#"{"alg":"RS256"}"#) + "." + Self.part(#"{"sub":"alice"}"#)
        let inputFile = dir.appendingPathComponent("in").path, sigFile = dir.appendingPathComponent("sig").path
        try Data(input.utf8).write(to: URL(fileURLWithPath: inputFile))
        #expect(try runTool("openssl", ["dgst", "-sha256", "-sign", priv, "-out", sigFile, inputFile]).status == 0)
        let sig = Array(try Data(contentsOf: URL(fileURLWithPath: sigFile)))
        #expect(Self.refusal(input + "." + Base64URL.encode(sig), ring) == nil)
    }

    @Test func aKidPicksItsKeyAndATokenWithoutOneOnlyKeysWithout() throws {
        let other = [UInt8](repeating: 9, count: 32)
        let ring = JWTKeyRing([try JWTKeyRing.Entry(alg: .HS256, kid: "k1", key: VerificationKey(secret: other))])
        #expect(Self.refusal(try Self.token(header: #"{"alg":"HS256","kid":"k1"}"#, key: other), ring) == nil)
        #expect(Self.refusal(try Self.token(header: #"{"alg":"HS256"}"#, key: other), ring) == .unknownKey, "no kid: only keys without one")
        #expect(Self.refusal(try Self.token(header: #"{"alg":"HS256","kid":"k2"}"#, key: other), ring) == .unknownKey)
        // A key without kid serves tokens with a kid no key has.
        let plain = try Self.hs256Ring()
        #expect(Self.refusal(try Self.token(header: #"{"alg":"HS256","kid":"whatever"}"#), plain) == nil)
    }

    @Test func weakKeysAreRefusedWhenConfigured() throws {
        #expect(throws: JWTRefusal.self) { try JWTKeyRing.Entry(alg: .HS256, kid: nil, key: VerificationKey(secret: [UInt8](repeating: 1, count: 31))) }
        #expect(throws: JWTRefusal.self) { try JWTKeyRing.Entry(alg: .HS512, kid: nil, key: VerificationKey(secret: [UInt8](repeating: 1, count: 48))) }
        #expect(throws: Never.self) { try JWTKeyRing.Entry(alg: .HS512, kid: nil, key: VerificationKey(secret: [UInt8](repeating: 1, count: 64))) }
        #expect(RSAKeyCheck.problem(modulus: [0x80] + [UInt8](repeating: 1, count: 127), exponent: [1, 0, 1])?.contains("1024 bits") == true)
        #expect(RSAKeyCheck.problem(modulus: [0xC3] + [UInt8](repeating: 0x5B, count: 255), exponent: [1])?.contains("exponent") == true)
    }

    @Test func base64urlIsStrict() {
        #expect(Base64URL.decode("AQ") == [1])
        #expect(Base64URL.decode("AR") == nil, "unused bits set: another spelling of the same byte")
        #expect(Base64URL.decode("AQ==") == nil)
        #expect(Base64URL.decode("A") == nil)
        #expect(Base64URL.decode("A+") == nil && Base64URL.decode("A/") == nil && Base64URL.decode("A Q") == nil)
        #expect(Base64URL.decode("-_8") == [0xFB, 0xFF])
        for n in 0..<40 {
            let bytes = (0..<n).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            #expect(Base64URL.decode(Base64URL.encode(bytes)) == bytes)
        }
        #expect(CompactJWS.looksLikeJWT("eyJh.eyJz.c2ln") && !CompactJWS.looksLikeJWT("static-secret-token"))
        #expect(!CompactJWS.looksLikeJWT("a.b") && !CompactJWS.looksLikeJWT("a b.c.d"))
    }
}
