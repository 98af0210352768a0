@testable import FoldCore
import FoldCrypto
import FoldTestSupport
import Foundation
import Testing

/// Project Wycheproof's vectors (../shared/conformance/wycheproof, read from
/// there): every record must get the answer its `result` says from the JWT
/// verification (`VerificationKey`, `JWSVerifier`). "acceptable" records
/// (legacy forms a verifier may take or refuse) are counted, and foldsync
/// refuses them: it is the stricter answer.
@Suite struct WycheproofTests {
    static func load(_ file: String) throws -> JSON {
        let dir = try #require(ConformanceSuite.directory("wycheproof", marker: "json_web_signature_test.json", filePath: #filePath),
                               "Wycheproof vectors not found; set FOLDSYNC_CONFORMANCE_DIR")
        return try JSONParser.parse(Array(try Data(contentsOf: dir.appendingPathComponent(file))), maxDepth: 64)
    }

    static func hex(_ s: String?) throws -> [UInt8] {
        let text = try #require(s)
        return try #require(Hex.decode(text), "not hex: \(text)")
    }

    /// Records whose `result` contradicts the standards, as others who run
    /// these vectors found too: the answer foldsync gives instead, and why.
    /// Each must be met, so a new disagreement cannot hide among them.
    static let faultsOfTheFile: [String: (answer: Bool, why: String)] = [
        "json_web_signature_test.json 346": (false, "Figure20: the key names PS256, the token PS384; the algorithm is the key's"),
        "json_web_signature_test.json 347": (false, "Figure27: the key names 'ES521', which is no JWS algorithm (ES512 is)"),
        "json_web_signature_test.json 350": (false, "Figure20 again, with key_ops"),
        "json_web_signature_test.json 351": (false, "Figure27 again, with key_ops"),
        "json_web_signature_test.json 367": (true, "'invalidBase64Padding', yet the token is tcId 357's, valid and unpadded"),
        "json_web_signature_test.json 370": (true, "'invalidBase64PaddingInPayload', the same token again"),
        "json_web_signature_test.json 372": (false, "'valid' with a '?' inside the header's base64url (RFC 7515 §2: strict)"),
        "json_web_signature_test.json 373": (false, "'valid' with a '?' inside the payload's base64url"),
    ]

    /// Runs `verify` on every test of every group; returns how many there were.
    @discardableResult
    static func each(_ file: String, _ verify: (JSON, JSON) throws -> Bool) throws -> Int {
        var n = 0
        var faultsMet: Set<String> = []
        for group in try #require(try load(file)["testGroups"]?.arrayValue) {
            for t in try #require(group["tests"]?.arrayValue) {
                n += 1
                let expected = t["result"]?.stringValue
                let got = try verify(group, t)
                let id = t["tcId"]?.intValue ?? -1
                let what = "\(file) #\(id) (\(expected ?? "?")): \(t["comment"]?.stringValue ?? "")"
                if let fault = faultsOfTheFile["\(file) \(id)"] {
                    faultsMet.insert("\(file) \(id)")
                    #expect(got == fault.answer, "\(what): \(fault.why)")
                    continue
                }
                switch expected {
                case "valid": #expect(got, "\(what)")
                case "invalid", "acceptable": #expect(!got, "\(what)")
                default: Issue.record("\(what): unknown result")
                }
            }
        }
        #expect(faultsMet == Set(faultsOfTheFile.keys.filter { $0.hasPrefix(file + " ") }), "the file's known faults")
        return n
    }

    /// A group's key: its JWK when it has one (built into DER here), else its DER.
    static func key(_ group: JSON, jwk name: String = "publicKeyJwk") throws -> VerificationKey? {
        if let jwk = group[name] { return VerificationKey(jwk: try JWK(json: jwk)) }
        return VerificationKey(subjectPublicKeyInfo: try hex(group["publicKeyDer"]?.stringValue))
    }

    /// Public-key signatures: ECDSA in JOSE's r‖s form, Ed25519, RSA
    /// PKCS#1 v1.5 and PSS (MGF1-SHA-256, a 32-byte salt), each record with
    /// its group's key.
    @Test(arguments: [("ecdsa_secp256r1_sha256_p1363_test.json", JWSAlgorithm.ES256, "publicKeyJwk", 262),
                      ("ecdsa_secp384r1_sha384_p1363_test.json", .ES384, "publicKeyJwk", 280),
                      ("ed25519_test.json", .EdDSA, "publicKeyJwk", 151),
                      ("rsa_signature_2048_sha256_test.json", .RS256, "keyJwk", 259),
                      ("rsa_pss_2048_sha256_mgf1_32_test.json", .PS256, "publicKeyJwk", 108)])
    func signatures(file: String, alg: JWSAlgorithm, jwk: String, records: Int) throws {
        let n = try Self.each(file) { group, t in
            guard let key = try Self.key(group, jwk: jwk) else { return false }
            return key.verify(alg, message: try Self.hex(t["msg"]?.stringValue), signature: try Self.hex(t["sig"]?.stringValue))
        }
        #expect(n == records)
    }

    @Test func hmacSHA256() throws {
        let n = try Self.each("hmac_sha256_test.json") { group, t in
            let key = VerificationKey(secret: try Self.hex(t["key"]?.stringValue))
            let tagBytes = try #require(group["tagSize"]?.intValue) / 8
            return key.verify(.HS256, message: try Self.hex(t["msg"]?.stringValue), signature: try Self.hex(t["tag"]?.stringValue),
                              macBytes: tagBytes)
        }
        #expect(n == 174)
    }

    /// Compact JWS with their JWKs: a group's single key is configured as
    /// `ALG:PATH` would be (its `alg`, no kid: tokens with any kid reach it),
    /// a JWK Set as `jwks:PATH`; the token's header only has to agree.
    @Test(arguments: ["json_web_signature_test.json", "json_web_key_test.json"])
    func compactJWS(file: String) throws {
        let n = try Self.each(file) { group, t in
            let keys = try #require(group["public"] ?? group["private"])
            let ring: JWTKeyRing
            do throws(JWTRefusal) {
                if keys["keys"] != nil {
                    ring = try JWTKeyRing(jwks: keys)
                } else {
                    guard let jwk = try? JWK(json: keys), jwk.verifies, let alg = jwk.alg.flatMap(JWSAlgorithm.init(rawValue:)),
                          let key = VerificationKey(jwk: jwk) else { return false }
                    ring = JWTKeyRing([try JWTKeyRing.Entry(alg: alg, kid: nil, key: key)])
                }
            } catch {
                return false
            }
            let token = try #require(t["jws"]?.stringValue)
            do throws(JWTRefusal) {
                try ring.verify(try CompactJWS(token))
                return true
            } catch {
                return false
            }
        }
        #expect(n > 20)
    }
}
