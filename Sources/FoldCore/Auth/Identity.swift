/// Who a connection or request proved to be, whatever proved it: a static
/// token (one glob, its permissions, no end) or a JWT (its `sub`, its
/// `foldsync` grants, its `exp`). Every permission check goes through here.
public struct Identity: Sendable, Equatable {
    public enum Source: Sendable, Equatable {
        case token
        case jwt
    }

    public struct Grant: Sendable, Equatable {
        public let glob: String
        public let permissions: Permission
        public init(glob: String, permissions: Permission) {
            self.glob = glob
            self.permissions = permissions
        }
    }

    /// The actor's name in history, presence and `authenticated`.
    public let name: String
    public let grants: [Grant]
    public let source: Source
    /// A JWT's `exp`, seconds since the epoch; nil for a static token.
    public let expires: Double?

    public init(name: String, grants: [Grant], source: Source, expires: Double?) {
        self.name = name
        self.grants = grants
        self.source = source
        self.expires = expires
    }

    public init(token: AccessToken) {
        self.init(name: token.name, grants: [Grant(glob: token.boards, permissions: token.permissions)], source: .token, expires: nil)
    }

    public init(claims: JWTClaims) {
        self.init(name: claims.subject, grants: claims.grants.map { Grant(glob: $0.glob, permissions: $0.permissions) },
                  source: .jwt, expires: claims.expires)
    }

    /// The union of what the globs matching `board` grant; with no board, of all.
    public func permissions(on board: String?) -> Permission {
        grants.reduce(into: Permission()) { p, g in
            if board.map({ Glob.matches(g.glob, $0) }) ?? true { p.formUnion(g.permissions) }
        }
    }

    /// `p` lists alternatives: one of them is needed (none at all, `[]`, for
    /// what any proven identity may see), on `board` when one is named.
    public func allows(_ p: Permission, board: String?) -> Bool {
        if p.isEmpty && board == nil { return true }
        if p.isEmpty { return grants.contains { Glob.matches($0.glob, board!) } }
        return !permissions(on: board).isDisjoint(with: p)
    }

    /// How refusals name it: `token 'ci'`, `subject 'alice'`.
    public var describedAsActor: String { source == .token ? "token '\(name)'" : "subject '\(name)'" }

    /// `authenticated`'s `boards`: the one glob, or `*` when grants are
    /// several (then `grants` says which glob grants what).
    public var boardsSummary: String { grants.count == 1 ? grants[0].glob : "*" }
}
