import FoldCore

/// One `jwt-key` value, parsed but not read: `ALG:PATH[:kid=ID]` (a secret
/// file for HS256/384/512, a PEM public key for the others) or
/// `jwks:PATH` (a JWK Set whose keys name their own `alg` and `kid`). The
/// daemon reads the files at start and on every SIGHUP, off the event loop.
public struct JWTKeySpec: Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        case key(JWSAlgorithm)
        case jwks
    }

    public let kind: Kind
    public let path: String
    public let kid: String?

    public init(kind: Kind, path: String, kid: String?) {
        self.kind = kind
        self.path = path
        self.kid = kid
    }

    public static func parse(_ text: String) -> Result<JWTKeySpec, ConfigError> {
        guard let colon = text.firstIndex(of: ":") else {
            return .failure(ConfigError(description: "expects ALG:PATH[:kid=ID] or jwks:PATH, got '\(text)'"))
        }
        let head = String(text[..<colon])
        var path = String(text[text.index(after: colon)...])
        var kid: String?
        let marker = ":kid="
        if let at = path.indices.last(where: { path[$0...].hasPrefix(marker) }) {
            kid = String(path[path.index(at, offsetBy: marker.count)...])
            path = String(path[..<at])
            guard let k = kid, !k.isEmpty, k.utf8.count <= 128, k.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7f }) else {
                return .failure(ConfigError(description: "kid= expects 1-128 printable characters"))
            }
        }
        guard !path.isEmpty else { return .failure(ConfigError(description: "expects a file after '\(head):'")) }
        if head == "jwks" {
            guard kid == nil else { return .failure(ConfigError(description: "a JWK Set's keys carry their own kid: jwks:PATH takes no kid=")) }
            return .success(JWTKeySpec(kind: .jwks, path: path, kid: nil))
        }
        guard let alg = JWSAlgorithm(rawValue: head) else {
            let names = JWSAlgorithm.allCases.map(\.rawValue).joined(separator: ", ")
            return .failure(ConfigError(description: "'\(head)' is not an algorithm foldsync verifies (\(names), or jwks)"))
        }
        return .success(JWTKeySpec(kind: .key(alg), path: path, kid: kid))
    }

    public var description: String {
        switch kind {
        case .jwks: "jwks:\(path)"
        case .key(let alg): "\(alg.rawValue):\(path)" + (kid.map { ":kid=\($0)" } ?? "")
        }
    }
}
