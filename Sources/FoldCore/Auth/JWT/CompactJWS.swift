/// A JWS in compact serialization (RFC 7515 §7.1), taken apart and checked
/// for form only: three strict base64url parts, a header that is a JSON
/// object (read by the daemon's strict parser: duplicate members refused)
/// naming its `alg`, at most `maxBytes` in all. Whether the signature holds
/// is the verifier's (FoldCrypto's `JWSVerifier`), with the configured key's
/// algorithm.
public struct CompactJWS: Sendable {
    public static let maxBytes = 8 * 1024

    public let header: JSONObject
    /// The header's `alg` and `kid`.
    public let alg: String
    public let kid: String?
    public let payload: [UInt8]
    /// What was signed: the first two parts as sent, with their dot.
    public let signingInput: [UInt8]
    public let signature: [UInt8]

    /// Whether `text` has the shape of a JWT: three parts, a header and
    /// claims in base64url. The signature's form is left to `init`, so a
    /// padded or mangled one is refused as a JWT (and counted as one).
    public static func looksLikeJWT<S: StringProtocol>(_ text: S) -> Bool {
        let parts = text.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        return parts.count == 3 && parts[0].count > 0 && parts[1].count > 0
            && parts[0].allSatisfy(Base64URL.isAlphabet) && parts[1].allSatisfy(Base64URL.isAlphabet)
    }

    public init(_ token: String) throws(JWTRefusal) {
        let bytes = Array(token.utf8)
        guard bytes.count <= Self.maxBytes else { throw JWTRefusal(.tooLarge, "the token is larger than \(Self.maxBytes) bytes") }
        let parts = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw JWTRefusal(.malformed, "a token has three parts separated by dots") }
        guard let h = Base64URL.decode(String(decoding: parts[0], as: UTF8.self)),
              let p = Base64URL.decode(String(decoding: parts[1], as: UTF8.self)),
              let s = Base64URL.decode(String(decoding: parts[2], as: UTF8.self)) else {
            throw JWTRefusal(.base64, "a part of the token is not base64url without padding")
        }
        let json: JSON
        do { json = try JSONParser.parse(h, maxDepth: 8) } catch {
            throw JWTRefusal(.header, "the token's header is not JSON (\(error.message))")
        }
        guard let object = json.objectValue else { throw JWTRefusal(.header, "the token's header is not a JSON object") }
        guard let alg = object["alg"]?.stringValue else { throw JWTRefusal(.header, "the token's header names no 'alg'") }
        if let kid = object["kid"], kid.stringValue == nil { throw JWTRefusal(.header, "the token's 'kid' is not a string") }
        header = object
        self.alg = alg
        kid = object["kid"]?.stringValue
        payload = p
        signingInput = Array(bytes[..<(parts[0].count + 1 + parts[1].count)])
        signature = s
    }
}
