import FoldConfig
import FoldCore
import FoldCrypto
import FoldHub
import FoundationEssentials
import Glibc

/// Reads the `jwt-key` files into the hub's `JWTSettings`: at start, and on
/// every SIGHUP on the signal thread (never the event loop), so a rotated
/// key file takes effect without a restart. Any unreadable or unfit key
/// refuses the whole set: a start fails, a reload keeps the old keys.
enum JWTKeyFiles {
    /// A key file larger than this is not a key.
    static let maxFileBytes = 1 << 20
    /// RFC 7518 §3.2: an HMAC key at least as long as its hash; 32 bytes for every HS algorithm here.
    static let minSecretBytes = 32

    /// nil when no `jwt-key` is configured.
    static func load(_ config: DaemonConfig) throws(ConfigError) -> JWTSettings? {
        guard !config.jwtKeys.isEmpty else { return nil }
        var entries: [JWTKeyRing.Entry] = []
        for spec in config.jwtKeys { entries += try self.entries(spec) }
        let authority = JWTAuthority(ring: JWTKeyRing(entries), issuer: config.jwtIssuer.isEmpty ? nil : config.jwtIssuer,
                                     audience: config.jwtAudience.isEmpty ? nil : config.jwtAudience, leeway: Double(config.jwtLeeway))
        return JWTSettings(verifier: authority, leeway: Double(config.jwtLeeway), refreshBefore: Double(config.jwtRefreshBefore))
    }

    static func entries(_ spec: JWTKeySpec) throws(ConfigError) -> [JWTKeyRing.Entry] {
        let bytes = try read(spec.path)
        func fail(_ why: String) -> JWTRefusal { JWTRefusal(.keyConfiguration, why) }
        do throws(JWTRefusal) {
            switch spec.kind {
            case .jwks:
                let json: JSON
                do { json = try JSONParser.parse(bytes, maxDepth: 8) } catch { throw fail("not JSON (\(error.message))") }
                return try JWTKeyRing(jwks: json).entries
            case .key(let alg) where alg.family == .hmac:
                guard bytes.count >= minSecretBytes else {
                    throw fail("a shared secret must be at least \(minSecretBytes) bytes (the file holds \(bytes.count))")
                }
                return [try JWTKeyRing.Entry(alg: alg, kid: spec.kid, key: VerificationKey(secret: bytes))]
            case .key(let alg):
                guard let key = VerificationKey(pem: bytes) else { throw fail("not a PEM public key (-----BEGIN PUBLIC KEY-----)") }
                return [try JWTKeyRing.Entry(alg: alg, kid: spec.kid, key: key)]
            }
        } catch {
            throw ConfigError(description: "jwt-key \(spec): \(error.message)")
        }
    }

    static func read(_ path: String) throws(ConfigError) -> [UInt8] {
        var info = stat()
        guard stat(path, &info) == 0 else { throw ConfigError(description: "jwt-key: cannot read \(path)") }
        guard Int(info.st_size) <= maxFileBytes else { throw ConfigError(description: "jwt-key: \(path) is larger than \(maxFileBytes) bytes") }
        guard let data = FileManager.default.contents(atPath: path) else { throw ConfigError(description: "jwt-key: cannot read \(path)") }
        return [UInt8](data)
    }
}
