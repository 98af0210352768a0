/// One configured token: `NAME PERMISSIONS SHA256-OF-SECRET [BOARD-GLOB]`.
/// Only the hash is kept; the secret never is.
public struct AccessToken: Sendable, Equatable {
    public var name: String
    public var permissions: Permission
    /// SHA-256 of the secret, raw bytes.
    public var hash: [UInt8]
    public var boards: String

    /// Parses a `token = ...` value; nil with why when malformed.
    public static func parse(_ spec: String) -> Result<AccessToken, FoldError> {
        let f = spec.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        guard f.count == 3 || f.count == 4 else {
            return .failure(FoldError(.badRequest, "expects 'NAME PERMISSIONS SHA256 [BOARD-GLOB]'"))
        }
        guard Names.isValid(f[0]) else { return .failure(FoldError(.badRequest, "token name '\(f[0])' is not a valid name")) }
        guard let perms = Permission(list: f[1]) else {
            return .failure(FoldError(.badRequest, "permissions '\(f[1])' must be a comma list of read, fold, edit, admin"))
        }
        guard let hash = Self.unhex(f[2]), hash.count == 32 else {
            return .failure(FoldError(.badRequest, "the hash must be 64 hex digits (foldsyncd hash-token prints it)"))
        }
        let glob = f.count == 4 ? f[3] : "*"
        guard Glob.isValidPattern(glob) else {
            return .failure(FoldError(.badRequest, "board glob '\(glob)' may hold name characters, * and ?"))
        }
        return .success(AccessToken(name: f[0], permissions: perms, hash: hash, boards: glob))
    }

    /// `p` lists alternatives: the token needs one of them (an action needs
    /// one permission; a revert any one that changes something, before the
    /// hub checks the one its change needed; none at all, `[]`, for what any
    /// valid token may see), and `board` within its glob.
    public func allows(_ p: Permission, board: String?) -> Bool {
        guard p.isEmpty || !permissions.isDisjoint(with: p) else { return false }
        guard let board else { return true }
        return Glob.matches(boards, board)
    }

    static func unhex(_ s: String) -> [UInt8]? {
        let u = Array(s.lowercased().utf8)
        guard u.count % 2 == 0 else { return nil }
        func v(_ c: UInt8) -> UInt8? {
            switch c {
            case 0x30...0x39: c - 0x30
            case 0x61...0x66: c - 0x61 + 10
            default: nil
            }
        }
        var out: [UInt8] = []
        for i in stride(from: 0, to: u.count, by: 2) {
            guard let a = v(u[i]), let b = v(u[i + 1]) else { return nil }
            out.append(a << 4 | b)
        }
        return out
    }
}

/// The configured tokens. Empty means anonymous: everyone may do everything.
public struct AccessPolicy: Sendable, Equatable {
    public var tokens: [AccessToken] = []

    public init(tokens: [AccessToken] = []) { self.tokens = tokens }

    public var isAnonymous: Bool { tokens.isEmpty }

    /// The token whose hash matches the secret's. Every token is compared,
    /// in constant time each, so timing tells nothing about which matched.
    public func authenticate(_ secret: String, digest: any SecretDigest) -> AccessToken? {
        let h = digest.sha256(Array(secret.utf8))
        var found: AccessToken?
        for t in tokens where digest.constantTimeEqual(t.hash, h) && found == nil { found = t }
        return found
    }
}
